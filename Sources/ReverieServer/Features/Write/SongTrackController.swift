import AudioRender
import Foundation
import ReverieAPI
import Vapor

extension SongTrack: Content {}

/// A song's own player: the tracks attached to it (Listen music items), the A–B loop saved with
/// each, the track at a practice speed with its pitch kept, and the loop rendered to a file.
struct SongTrackController: RouteCollection {
    let songTracks: Store<any SongTrackRepository>
    let library: Store<any LibraryRepository>
    let compositions: Store<any CompositionRepository>
    let media: MediaFiles
    let store: LibraryStore
    /// Where practice speeds and rendered loops are kept, `<data>/cache/practice`.
    let practiceDirectory: URL
    /// Practice speeds: half speed up to a quarter faster.
    static let speeds: ClosedRange<Double> = 0.5...1.25
    /// The shortest loop: one nudge of a handle.
    static let shortestLoop = 0.1

    func boot(routes: any RoutesBuilder) throws {
        let tracks = routes.grouped("api", "compositions", ":compositionID", "tracks")
        tracks.get(use: list)
        tracks.post(use: attach)
        tracks.delete(":trackID", use: detach)
        tracks.put(":trackID", "loop", use: saveLoop)
        tracks.get(":trackID", "audio", use: audio)
        tracks.get(":trackID", "loop", use: renderLoop)
    }

    func list(req: Request) async throws -> [SongTrack] {
        let song = try await composition(req)
        return try await songTracks.on(req).all(of: song, ownedBy: req.user).map(Self.api)
    }

    /// `POST`: `{"itemID"}` of one of the person's music items; 201 with the track (200 when it
    /// was attached already). Someone else's item, or a book, answers 404.
    func attach(req: Request) async throws -> Response {
        let user = try req.user
        let song = try await composition(req)
        let body = try req.content.decode(SongTrackAttach.self)
        guard let item = try await library.on(req).find(body.itemID, ownedBy: user), item.kind == "music" else {
            throw APIError.notFound("music item")
        }
        let (track, created) = try await songTracks.on(req).attach(item.id, to: song, ownedBy: user)
        return try await Self.api((track, item)).encodeResponse(status: created ? .created : .ok, for: req)
    }

    func detach(req: Request) async throws -> HTTPStatus {
        let song = try await composition(req)
        let id = try req.uuidParameter("trackID", naming: "track")
        guard try await songTracks.on(req).detach(id, of: song, ownedBy: req.user) else { throw APIError.notFound("track") }
        return .noContent
    }

    /// `PUT …/loop`: A and B (seconds, at least 0.1 s apart, within the track) and the toggle.
    func saveLoop(req: Request) async throws -> SongTrack {
        let (stored, item) = try await self.track(req)
        var track = stored
        let points = try req.content.decode(SongLoopPoints.self)
        let duration = Double(item.durationMs) / 1000
        guard points.start.isFinite, points.end.isFinite, points.start >= 0, points.end <= duration + 0.05 else {
            throw APIError(.badRequest, code: "invalid_field", String(format: "loop: A and B are seconds within the track (0 to %.1f).", duration))
        }
        guard points.end - points.start >= Self.shortestLoop else {
            throw APIError(.badRequest, code: "invalid_field", "loop: B comes at least 0.1 s after A.")
        }
        try await songTracks.on(req).setLoop(track.id, start: points.start, end: min(points.end, duration),
                                                      enabled: points.enabled, ownedBy: req.user)
        track.loopStart = points.start
        track.loopEnd = min(points.end, duration)
        track.loopEnabled = points.enabled
        return Self.api((track, item))
    }

    /// `GET …/audio[?speed=0.75]`: the track; at another speed, made once (pitch kept) as FLAC,
    /// lossless so the player's loop stays sample-exact.
    func audio(req: Request) async throws -> Response {
        let (_, item) = try await track(req)
        let speed = ((try req.queryDouble("speed", in: Self.speeds) ?? 1) * 20).rounded() / 20
        guard speed != 1 else { return try await LibraryController.serveAudio(of: item, media: media, store: store, req) }
        let file = try practiceFile("\(item.fileHash)-x\(String(format: "%.2f", speed)).flac")
        if !FileManager.default.fileExists(atPath: file.path) {
            try await AudioFiles().changeTempo(store.file(of: item), speed: speed, into: file)
        }
        return try await media.serve(file.path, type: "audio/flac", name: nil, for: req)
    }

    /// `GET …/loop[?repeats=8]`: the saved A–B section played `repeats` times (1 to 32) as FLAC,
    /// its ends snapped and its last moments faded into the music before A (`SongLoop`), so no
    /// join clicks: to practise away from the editor.
    func renderLoop(req: Request) async throws -> Response {
        let (track, item) = try await self.track(req)
        guard let start = track.loopStart, let end = track.loopEnd else {
            throw APIError(.conflict, code: "no_loop", "Set A and B on this track first (the song's player, Loop).")
        }
        let repeats = try req.queryInteger("repeats", in: 1...32) ?? 8
        let name = String(format: "%@-loop-%.3f-%.3f-%d.flac", item.fileHash, start, end, repeats)
        let file = try practiceFile(name)
        if !FileManager.default.fileExists(atPath: file.path) {
            let files = AudioFiles()
            // Either side, room for the ends to move and, before A, for the fade into it.
            let margin = SongLoop.snapRadius + SongLoop.crossfade
            let from = max(0, start - margin)
            let section = try await files.decodeSection(store.file(of: item), from: from, to: end + margin)
            let rate = Double(section.sampleRate)
            let range = section.snappedRange(from: Int(((start - from) * rate).rounded()), to: Int(((end - from) * rate).rounded()))
            try await files.writeFLAC(section.repeated(range, times: repeats), to: file)
        }
        let response = try await media.serve(file.path, type: "audio/flac", name: nil, for: req)
        response.markAsDownload(named: "\(item.title) loop ×\(repeats).flac")
        return response
    }

    // MARK: -

    private func composition(_ req: Request) async throws -> UUID {
        let id = try req.uuidParameter("compositionID", naming: "composition")
        guard try await compositions.on(req).find(id, ownedBy: req.user) != nil else { throw APIError.notFound("composition") }
        return id
    }

    private func track(_ req: Request) async throws -> (SongTrackRecord, LibraryItemRecord) {
        let song = try await composition(req)
        let id = try req.uuidParameter("trackID", naming: "track")
        guard let found = try await songTracks.on(req).find(id, of: song, ownedBy: req.user) else { throw APIError.notFound("track") }
        return found
    }

    private func practiceFile(_ name: String) throws -> URL {
        let directory = practiceDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name)
    }

    static func api(_ pair: (SongTrackRecord, LibraryItemRecord)) -> SongTrack {
        let (track, item) = pair
        let loop = track.loopStart.flatMap { start in track.loopEnd.map { SongLoopPoints(start: start, end: $0, enabled: track.loopEnabled) } }
        return SongTrack(id: track.id, itemID: item.id, title: item.title, artist: item.author,
                         durationMs: item.durationMs, loop: loop)
    }
}
