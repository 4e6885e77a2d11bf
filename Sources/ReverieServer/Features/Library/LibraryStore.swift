import Archives
import AudioRender
import Crypto
import Foundation
import MediaFormats
import Reader
import ReverieAPI
import Vapor

/// Turns an audio file into a library item: reads it with `MediaFormats`, keeps it once under
/// `<data>/media/library/<sha256>.<ext>`, makes a thumbnail of its cover, and adds the row.
/// Used by the upload route and `reverie library import`.
struct LibraryStore: Sendable {
    let mediaDirectory: URL
    let artworkDirectory: URL
    /// The library's rows; its writes come after a file is stored, on any connection.
    let repository: Store<any LibraryRepository>
    let threadPool: NIOThreadPool
    let runner: CommandRunner
    let incomingDirectory: URL
    let maxUploadBytes: Int
    /// Where files made from a library file are kept, named by its hash: its sleep-timer
    /// renditions, and a song's practice speeds and rendered loops.
    let derivedDirectories: [URL]

    init(config: ServerConfig, repository: Store<any LibraryRepository>, threadPool: NIOThreadPool, runner: CommandRunner = .live) {
        derivedDirectories = [config.cacheDirectory("renditions"), config.cacheDirectory("practice")]
        incomingDirectory = config.mediaDirectory(".incoming")
        maxUploadBytes = config.maxUploadBytes
        mediaDirectory = config.mediaDirectory("library")
        artworkDirectory = config.mediaDirectory("artwork")
        self.repository = repository
        self.threadPool = threadPool
        self.runner = runner
    }

    /// Adds `upload` to the library of the person with `ownerID` as `kind` (`book`, `music`, or nil
    /// to decide: an M4B or a file with chapters is a book). A zip of MP3 files becomes one book,
    /// its parts joined in order (see `MP3Book`). The scratch file is moved or removed, whatever happens.
    /// - Returns: the item, and whether the person already had these bytes (then nothing is added).
    func add(_ upload: ReceivedUpload, kind: String?, ownerID: UUID) async throws -> (item: LibraryItemRecord, duplicate: Bool) {
        defer { try? FileManager.default.removeItem(at: upload.file) }
        guard SafeArchive.isZip(upload.file) else { return try await addFile(upload, kind: kind, ownerID: ownerID) }
        let work = incomingDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let (zip, limit) = (upload.file, maxUploadBytes)
        let entries = try await threadPool.runIfActive { try AudiobookZip.extractMP3s(zip, into: work, limit: limit) }
        let name = upload.originalName.map { ($0 as NSString).deletingPathExtension }
        return try await addBook(parts: entries, in: work, name: name, originalName: upload.originalName, ownerID: ownerID)
    }

    /// MP3 parts (a folder or a zip's) joined into one book, one chapter per part, ordered by
    /// disc, track and natural name; `work` is a scratch folder the caller removes. The joined
    /// file is described from its parts (not read again): its title is the parts' album, else `name`.
    func addBook(parts entries: [(file: URL, name: String)], in work: URL, name: String?, originalName: String?,
                 ownerID: UUID, described: BookDescription? = nil) async throws -> (item: LibraryItemRecord, duplicate: Bool) {
        let output = work.appendingPathComponent("joined-\(UUID().uuidString).mp3")
        let joined: ParsedMedia = try await threadPool.runIfActive {
            let parts = try entries.map { entry -> MP3Book.Part in
                do {
                    return MP3Book.Part(path: entry.file.path, name: entry.name, media: try MediaFile.parse(path: entry.file.path))
                } catch let error as MediaFormatsError {
                    throw error.answered(lead: entry.name)
                }
            }
            // A described book (LibriVox's sections) keeps its own order and titles.
            let ordered = described == nil ? MP3Book.ordered(parts) : parts
            var chapters: [ParsedChapter]
            chapters = try MP3Book.join(ordered, to: output.path)
            var tags = ordered.first?.media.tags ?? ParsedTags()
            tags.title = tags.album ?? name
            (tags.track, tags.disc) = (nil, nil)
            if let described {
                tags.title = described.title
                tags.artist = described.author ?? tags.artist
                for (index, chapter) in described.chapters.enumerated() where chapters.indices.contains(index) {
                    chapters[index] = ParsedChapter(title: chapter.title, start: chapters[index].start, end: chapters[index].end)
                }
            }
            return ParsedMedia(format: .mp3, duration: chapters.last?.end ?? 0, tags: tags,
                               artwork: ordered.lazy.compactMap(\.media.artwork).first, chapters: chapters)
        }
        let (hash, count) = try Self.sha256(of: output)
        let upload = ReceivedUpload(file: output, byteCount: count, sha256: hash, originalName: originalName)
        return try await addFile(upload, kind: "book", ownerID: ownerID, media: joined, readers: described?.chapters.map(\.readers))
    }

    /// What a book is, when its source says so better than its files' tags (LibriVox's catalog).
    struct BookDescription: Sendable {
        var title: String
        var author: String?
        /// In the parts' order.
        var chapters: [(title: String, readers: [String])]
    }

    /// Adds one audio file; `media` when it is already known (a joined book), else it is read.
    private func addFile(_ upload: ReceivedUpload, kind: String?, ownerID: UUID, media known: ParsedMedia? = nil,
                         readers: [[String]]? = nil) async throws -> (item: LibraryItemRecord, duplicate: Bool) {
        if let existing = try await repository.outside.find(fileHash: upload.sha256, ownerID: ownerID) {
            return (existing, true)
        }
        let media: ParsedMedia
        if let known {
            media = known
        } else {
            let path = upload.file.path
            media = try await threadPool.runIfActive { try MediaFile.parse(path: path) }
        }
        let format = media.format.rawValue
        try FileManager.default.createDirectory(at: mediaDirectory, withIntermediateDirectories: true)
        let stored = file(hash: upload.sha256, format: format)
        if !FileManager.default.fileExists(atPath: stored.path) {
            try FileManager.default.moveItem(at: upload.file, to: stored)
        }
        let artworkHash = await thumbnail(media.artwork)

        let name = upload.originalName.map { ($0 as NSString).deletingPathExtension }
        let title = media.tags.title ?? name ?? "Untitled"
        let isBook = kind.map { $0 == "book" } ?? (media.chapters.count >= 2 || upload.originalName?.lowercased().hasSuffix(".m4b") == true)
        var chapters = media.chapters.map { LibraryChapter(title: $0.title, start: $0.start, end: $0.end) }
        for index in chapters.indices where chapters[index].title.isEmpty { chapters[index].title = "Chapter \(index + 1)" }
        if isBook && chapters.isEmpty { chapters = [LibraryChapter(title: title, start: 0, end: media.duration)] }
        for (index, names) in (readers ?? []).enumerated() where chapters.indices.contains(index) { chapters[index].readers = names }
        if !isBook { chapters = [] }
        let item = LibraryItemRecord(
            id: UUID(), kind: isBook ? "book" : "music", title: title, author: media.tags.artist ?? media.tags.albumArtist,
            album: media.tags.album, year: media.tags.year, track: media.tags.track, disc: media.tags.disc,
            durationMs: Int((media.duration * 1000).rounded()), format: format, fileHash: upload.sha256, byteSize: upload.byteCount,
            originalName: upload.originalName, artworkHash: artworkHash,
            chapters: chapters, createdAt: nil)
        do {
            return (try await repository.outside.create(item, ownerID: ownerID), false)
        } catch {
            // The same file uploaded twice at once: the second row is refused by the unique index.
            if let existing = try await repository.outside.find(fileHash: upload.sha256, ownerID: ownerID) { return (existing, true) }
            throw error
        }
    }

    /// The stored file of an item.
    func file(of item: LibraryItemRecord) -> URL {
        file(hash: item.fileHash, format: item.format)
    }

    /// `<hash>.mp3` or `<hash>.m4a`: the name follows the format read, never the name uploaded.
    private func file(hash: String, format: String) -> URL {
        mediaDirectory.appendingPathComponent("\(hash).\(format == ParsedMedia.Format.mp3.rawValue ? "mp3" : "m4a")")
    }

    func artworkFile(hash: String) -> URL {
        artworkDirectory.appendingPathComponent("\(hash).jpg")
    }

    /// After `items` are gone: removes their files and cover thumbnails that no one's item uses any more.
    func removeUnused(after items: [LibraryItemRecord]) async throws {
        for item in items where try await !repository.outside.isUsed(fileHash: item.fileHash) {
            try? FileManager.default.removeItem(at: file(of: item))
            DerivedFiles.remove(madeFrom: item.fileHash, in: derivedDirectories)
        }
        for hash in Set(items.compactMap(\.artworkHash)) where try await !repository.outside.isUsed(artworkHash: hash) {
            try? FileManager.default.removeItem(at: artworkFile(hash: hash))
        }
    }

    // MARK: -

    /// A 512 px JPEG of the cover, kept by the cover's own hash; nil without a cover or when the
    /// picture cannot be read (the item is still added).
    private func thumbnail(_ artwork: ParsedArtwork?) async -> String? {
        guard let artwork, !artwork.data.isEmpty else { return nil }
        let hash = SHA256.hash(data: artwork.data).hex
        let output = artworkFile(hash: hash)
        if FileManager.default.fileExists(atPath: output.path) { return hash }
        do {
            try FileManager.default.createDirectory(at: artworkDirectory, withIntermediateDirectories: true)
            let scratch = artworkDirectory.appendingPathComponent(".\(UUID().uuidString).jpg")
            let result = try await runner.run("ffmpeg", ["-v", "error", "-y", "-i", "pipe:0", "-frames:v", "1",
                                                         "-vf", "scale=512:512:force_original_aspect_ratio=decrease", "-q:v", "3", scratch.path], artwork.data)
            guard result.status == 0 else {
                try? FileManager.default.removeItem(at: scratch)
                return nil
            }
            try? FileManager.default.removeItem(at: output)
            try FileManager.default.moveItem(at: scratch, to: output)
            return hash
        } catch {
            return nil
        }
    }

    /// SHA-256 (hex) and size of a file, read a block at a time; with `copy`, also written there.
    static func sha256(of file: URL, copyingTo copy: URL? = nil) throws -> (hash: String, count: Int) {
        guard let input = try? FileHandle(forReadingFrom: file) else {
            throw LibraryError.unreadableFile(file.path)
        }
        defer { try? input.close() }
        var output: FileHandle?
        if let copy {
            FileManager.default.createFile(atPath: copy.path, contents: nil)
            output = try FileHandle(forWritingTo: copy)
        }
        defer { try? output?.close() }
        var hasher = SHA256()
        var count = 0
        while let block = try input.read(upToCount: 1 << 20), !block.isEmpty {
            hasher.update(data: block)
            try output?.write(contentsOf: block)
            count += block.count
        }
        return (hasher.finalize().hex, count)
    }
}

extension Application {
    /// Adds a file on the server's disk to the library of the person called `username` (the owner
    /// when nil), as `reverie library import` does. The file is copied, never moved.
    /// - Returns: the item's title and kind, and whether the person already had the same bytes.
    public func importToLibrary(file: URL, username: String?, kind: String?) async throws -> (title: String, kind: String, duplicate: Bool) {
        let ownerID = try await libraryOwner(username)
        let incoming = services.config.mediaDirectory(".incoming")
        try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
        let scratch = incoming.appendingPathComponent(UUID().uuidString)
        let copied: (hash: String, count: Int)
        do {
            copied = try LibraryStore.sha256(of: file, copyingTo: scratch)
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        let upload = ReceivedUpload(file: scratch, byteCount: copied.count, sha256: copied.hash, originalName: file.lastPathComponent)
        let (item, duplicate) = try await services.library.add(upload, kind: kind, ownerID: ownerID)
        return (item.title, item.kind, duplicate)
    }

    /// Makes one book of the MP3 files in `folder` (and its subfolders), as `reverie library import
    /// --kind book FOLDER` does: one chapter per file, by disc, track and natural name.
    public func importBookToLibrary(folder: URL, username: String?) async throws -> (title: String, chapters: Int, duplicate: Bool) {
        let ownerID = try await libraryOwner(username)
        var entries: [(file: URL, name: String)] = []
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let next = walker?.nextObject() as? URL {
            guard next.pathExtension.lowercased() == "mp3" else { continue }
            entries.append((next, String(next.path.dropFirst(folder.path.count).drop { $0 == "/" })))
        }
        guard !entries.isEmpty else { throw LibraryError.noMP3s(folder: folder.path) }
        let work = services.config.mediaDirectory(".incoming").appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let store = services.library
        let (item, duplicate) = try await store.addBook(parts: entries, in: work, name: folder.lastPathComponent,
                                                        originalName: folder.lastPathComponent, ownerID: ownerID)
        return (item.title, item.chapters.count, duplicate)
    }

    private func libraryOwner(_ username: String?) async throws -> UUID {
        let users = services.users.outside
        let person = if let username { try await users.find(username: username.lowercased()) }
                     else { try await users.all().first(where: \.isOwner) }
        guard let id = person?.id else { throw username.map { LibraryError.noSuchAccount($0) } ?? LibraryError.noOwner }
        return id
    }
}
