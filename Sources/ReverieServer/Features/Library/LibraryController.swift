import Foundation
import Playback
import ReverieAPI
import Vapor

extension LibraryItemInfo: Content {}
extension LibraryList: Content {}
extension LibraryUploadResult: Content {}

/// Listen's library: a person's books and music, uploaded from the web app (streamed to disk,
/// read with `MediaFormats`, kept once by content hash) and played with Range.
struct LibraryController: RouteCollection {
    let library: Store<any LibraryRepository>
    let progress: Store<any ProgressRepository>
    let media: MediaFiles
    let store: LibraryStore
    /// The sleep timer's renditions (`?until=`).
    let renditions: Renditions
    let maxUploadBytes: Int

    func boot(routes: any RoutesBuilder) throws {
        let library = routes.grouped("api", "library")
        library.get(use: list)
        library.on(.POST, takes: .streamed, use: upload)
        library.get(":itemID", use: show)
        library.delete(":itemID", use: delete)
        library.get(":itemID", "audio", use: audio)
        library.get(":itemID", "artwork", use: artwork)
    }

    /// `GET /api/library[?kind=book|music]`: newest first.
    func list(req: Request) async throws -> LibraryList {
        let user = try req.user
        let kind = try Self.kind(req)
        let items = try await library.on(req).all(kind: kind, ownedBy: user)
        let places = items.isEmpty ? [:] : try await progress.on(req).deciding(prefixed: ProgressController.libraryPrefix, ownedBy: user)
        // A summary of each book's chapters, never the chapters: a file may list 10,000 of them.
        return LibraryList(items: items.map { Self.info($0, places: places, chaptersListed: false) })
    }

    /// `POST /api/library[?kind=book|music]`: the body is the file (MP3, M4A or M4B), its name in
    /// `X-File-Name`. 201 with the new item; 200 with the one the person already has for the same bytes.
    func upload(req: Request) async throws -> Response {
        let user = try req.user
        let kind = try Self.kind(req)
        let received = try await media.receive(req, limit: maxUploadBytes)
        let (item, duplicate) = try await store.add(received, kind: kind, ownerID: user.id)
        return try await LibraryUploadResult(item: Self.info(item), duplicate: duplicate)
            .encodeResponse(status: duplicate ? .ok : .created, for: req)
    }

    /// `GET /api/library/{id}`: with where the person is, and which chapters they have heard.
    func show(req: Request) async throws -> LibraryItemInfo {
        let item = try await self.item(req)
        let places = try await progress.on(req).deciding(prefixed: Self.progressKey(item), ownedBy: try req.user)
        return Self.info(item, places: places)
    }

    /// `DELETE /api/library/{id}`: the item goes, and its file when no one else has the same one.
    func delete(req: Request) async throws -> HTTPStatus {
        let user = try req.user
        let id = try req.uuidParameter("itemID", naming: "library item")
        guard let removed = try await library.on(req).delete(id, ownedBy: user) else { throw APIError.notFound("library item") }
        try await store.removeUnused(after: [removed])
        return .noContent
    }

    /// `GET /api/library/{id}/audio[?until=SECONDS][&level=0–1][&boost=true]`: the file, with Range.
    /// With `until`, Listen's sleep timer's rendition: the same audio on the same timeline, ending
    /// at that second with its last 30 s fading out, so a book stops at its timer (or a chapter's
    /// end) with the phone locked; an `until` at or past the end answers the whole file. With
    /// `level` (to the dB) or `boost`, the same timeline at that level (an iPhone's volume slider,
    /// music ducked under speech, Boost's limiter), which holds where the element's volume can't.
    func audio(req: Request) async throws -> Response {
        let shape = try req.renditionShape(untilIn: 1...(7 * 24 * 3600))
        let item = try await item(req)
        if let rendition = try await renditions.rendition(of: store.file(of: item), key: item.fileHash,
                                                          duration: Double(item.durationMs) / 1000, shape: shape) {
            return try await media.serve(rendition.url.path, type: rendition.contentType, name: nil, for: req)
        }
        return try await Self.serveAudio(of: item, media: media, store: store, req)
    }

    /// An item's file, with Range (a song's player plays Listen's music through it too).
    static func serveAudio(of item: LibraryItemRecord, media: MediaFiles, store: LibraryStore, _ req: Request) async throws -> Response {
        let type = item.format == "mp3" ? "audio/mpeg" : "audio/mp4"
        return try await media.serve(store.file(of: item).path, type: type, name: nil, for: req)
    }

    /// `GET /api/library/{id}/artwork`: the cover as a JPEG of at most 512 px.
    func artwork(req: Request) async throws -> Response {
        let item = try await self.item(req)
        guard let hash = item.artworkHash else {
            throw APIError(.notFound, code: "no_artwork", "“\(item.title)” has no cover picture in its file.")
        }
        return try await media.serve(store.artworkFile(hash: hash).path, type: "image/jpeg", name: nil, for: req)
    }

    // MARK: -

    private func item(_ req: Request) async throws -> LibraryItemRecord {
        let user = try req.user
        let id = try req.uuidParameter("itemID", naming: "library item")
        guard let item = try await library.on(req).find(id, ownedBy: user) else { throw APIError.notFound("library item") }
        return item
    }

    static func kind(_ req: Request) throws -> String? {
        guard let kind = try req.queryString("kind", maximumLength: 10) else { return nil }
        guard ["book", "music"].contains(kind) else {
            throw APIError(.badRequest, code: "invalid_field", "kind: book or music.")
        }
        return kind
    }

    /// The item's key in the shared progress log: `library:<id>`; its chapters are `library:<id>/<index>`.
    static func progressKey(_ item: LibraryItemRecord) -> String {
        ItemKey(.library, item.id).text
    }

    /// The item as the API shows it; `places` (the deciding progress event by item) gives its place
    /// and its chapters' played marks.
    static func info(_ item: LibraryItemRecord, places: [String: ProgressEvent] = [:], chaptersListed: Bool = true) -> LibraryItemInfo {
        let id = item.id.uuidString.lowercased()
        let key = progressKey(item)
        let place = places[key].flatMap { ListeningProgress.position([$0], duration: Double(item.durationMs) / 1000) }
        var chapters = item.chapters
        for index in chapters.indices {
            chapters[index].played = places["\(key)/\(index)"]?.kind == .ended
        }
        return LibraryItemInfo(
            id: id, kind: item.kind, title: item.title, author: item.author, album: item.album, year: item.year, track: item.track,
            disc: item.disc, duration: Double(item.durationMs) / 1000, format: item.format, byteSize: item.byteSize,
            originalName: item.originalName, audioURL: "/api/library/\(id)/audio",
            artworkURL: item.artworkHash == nil ? nil : "/api/library/\(id)/artwork", chapters: chaptersListed ? chapters : [],
            chapterCount: chapters.count, chaptersPlayed: chapters.filter(\.played).count, createdAt: item.createdAt,
            progress: place.map { LibraryProgress(position: $0.position, finished: $0.finished, at: $0.at) })
    }
}
