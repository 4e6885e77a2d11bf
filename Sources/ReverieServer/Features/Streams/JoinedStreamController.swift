import AudioRender
import Foundation
import MediaFormats
import NIOConcurrencyHelpers
import Playback
import ReverieAPI
import Vapor

extension JoinedStreamInfo: Content {}

/// Listen's joined streams (issue 46): the files a person has queued, one after another as one MP3
/// the server makes as it is read (`JoinedStream`), so a locked phone goes on from one to the next
/// with no script: Up Next's entries, a book's next book, the next song.
///
/// Nothing is kept: the address says what is joined (`parts=library:<id>@12.5~3600,…`, each an
/// item, the second of its file to start from and the seconds it plays for), so the stream's
/// timeline never depends on what the server has now; a request makes only the parts its range
/// crosses, from the person's own items, and a part gone meanwhile (an episode's download deleted
/// once played) is silence, not the end of the stream. Library items, downloaded episodes, a
/// LibriVox book's sections (`librivox:<id>/<index>`), episodes that stream from their feed
/// (MP3s and M4As on another server, `RemoteParts`) and finished speech renders (`speech:<render
/// id>`, an article's spoken parts) are joined; anything else (another kind of file on a feed, a
/// render still being spoken) ends the stream before it.
struct JoinedStreamController: RouteCollection {
    let library: LibraryStore
    let podcasts: Store<any PodcastRepository>
    /// Speech renders' rows, and their cached files (`speech:` parts).
    let speechRenders: Store<any SpeechRenderRepository>
    let speech: SpeechJobs
    let config: ServerConfig
    /// A LibriVox book as its catalog describes it (kept a while), by id.
    let librivoxBook: @Sendable (Int, Request) async throws -> LibriVoxBookInfo?
    let remote: RemoteParts
    /// The sleep timer's fade, which an `until` ends the stream in.
    var fade: SleepFade = SleepTimer.fade
    var ffmpeg = "ffmpeg"
    let silence = SilentFrame()
    /// At most `mostAtOnce` answers sent to one person at once.
    let playing = StreamsPerPerson(limit: JoinedStreamController.mostAtOnce)

    /// The most parts one stream joins.
    static let mostParts = 50
    /// Frames made and dropped before a piece that starts inside its part, about half a second:
    /// the warm-up of ffmpeg's decoder after its seek into the file (a low-rate MP3's frames
    /// reach back into those before them) and of the encoder.
    static let prerollFrames = 21
    /// The most joined-stream answers one person is sent at once (each holds an ffmpeg): a player
    /// reads one or two, and a seek cancels the one before.
    static let mostAtOnce = 8

    func boot(routes: any RoutesBuilder) throws {
        let streams = routes.grouped("api", "streams")
        streams.get(use: plan)
        streams.get("audio", use: audio)
    }

    /// `GET /api/streams?parts=…`: the stream of as many of the parts, in order, as can be joined,
    /// each part's place in it, and the first that could not be (with why).
    func plan(req: Request) async throws -> JoinedStreamInfo {
        let asked = try Self.parts(req)
        var joined: [Resolved] = []
        var stop: (item: String, reason: String)?
        for (part, resolution) in zip(asked, try await resolveAll(asked, req)) {
            switch resolution {
            case .joined(let resolved): joined.append(resolved)
            case .not(let reason): stop = (part.item, reason)
            }
            if stop != nil { break }
        }
        let stream = JoinedStream(joined.map(\.part))
        let placed = joined.map { Asked(item: $0.asked.item, from: $0.part.from, length: $0.part.length) }
        return JoinedStreamInfo(
            audioURL: joined.isEmpty ? "" : "/api/streams/audio?parts=" + Self.formEncoded(Self.partsText(placed)),
            duration: stream.duration,
            parts: stream.parts.map { JoinedStreamPart(item: $0.part.name, start: $0.start, from: $0.part.from, length: $0.part.length) },
            stoppedAt: stop?.item, stopReason: stop?.reason)
    }

    /// `GET /api/streams/audio?parts=…[&until=SECONDS][&level=0–1][&boost=true]`: the parts joined
    /// (each with its length, as the plan's `audioURL` gives them; a part without one has its
    /// file's), MPEG audio with Range (its length is known
    /// before it is made), shaped as a file's rendition is: ending at `until` with the sleep timer's
    /// fade, at a level, with Boost. 404 `not_joinable` when a part the range starts in is not the
    /// person's to play; a later part gone meanwhile is silence. 429 past `mostAtOnce` at once.
    func audio(req: Request) async throws -> Response {
        let shape = try req.renditionShape(untilIn: 1...(7 * 24 * 3600))
        var asked = try Self.parts(req)
        // A part without its length (a file's rendition through the stream: one part, key alone)
        // has its file's, which must be there.
        var files: [Int: Source] = [:]
        for index in asked.indices where asked[index].length == nil {
            guard case .joined(let resolved) = try await resolve(asked[index], req) else {
                throw APIError(.notFound, code: "not_joinable", "\(asked[index].item) cannot be joined: it is not a file of yours on the server.")
            }
            asked[index] = Asked(item: resolved.asked.item, from: resolved.part.from, length: resolved.part.length)
            files[index] = resolved.source
        }
        let parts = asked.map { JoinedStream.Part(name: $0.item, from: $0.from, length: $0.length ?? 0) }
        let stream = JoinedStream(parts, shape: .init(gain: Double(shape.gain), boost: shape.boost, until: shape.until, fade: fade.seconds))
        guard stream.byteCount > 0, stream.parts.count == parts.count else {
            throw APIError(.badRequest, code: "invalid_field", "parts: each needs a length of more than 0 seconds.")
        }
        var range = 0...(stream.byteCount - 1)
        var status = HTTPResponseStatus.ok
        if let header = req.headers.first(name: .range) {
            switch Request.byteRange(header, size: stream.byteCount) {
            case .part(let asked): (range, status) = (asked, .partialContent)
            case .unsatisfiable: throw Request.rangeNotSatisfiable(size: stream.byteCount)
            case .whole: break
            }
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "audio/mpeg")
        headers.replaceOrAdd(name: .acceptRanges, value: "bytes")
        headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=3600")
        if status == .partialContent {
            headers.replaceOrAdd(name: .contentRange, value: "bytes \(range.lowerBound)-\(range.upperBound)/\(stream.byteCount)")
        }
        // The files of the parts the range crosses, the person's own: the first must be there, a
        // later one gone meanwhile is silence.
        for (index, piece) in stream.pieces(for: range).enumerated() where files[piece.part] == nil {
            switch try await resolve(asked[piece.part], req) {
            case .joined(let resolved): files[piece.part] = resolved.source
            case .not(let reason) where index == 0:
                throw APIError(.notFound, code: "not_joinable", "\(asked[piece.part].item) can no longer be joined: \(reason)")
            case .not: break
            }
        }
        if req.method == .HEAD {
            // The length, and nothing made.
            return Response(status: status, headers: headers, body: .init(asyncStream: { try await $0.write(.end) }, count: range.count))
        }
        let user = try req.user
        guard let ticket = playing.begin(for: user.id) else {
            throw APIError(.tooManyRequests, code: "too_many_streams", "\(Self.mostAtOnce) joined streams are already being sent to you: stop one first.")
        }
        let silent: Data
        do { silent = try await silence.frame(ffmpeg: ffmpeg) } catch { playing.end(ticket); throw error }
        let ffmpeg = ffmpeg, logger = req.logger, sources = files, bytes = range, playing = playing, remote = remote
        return Response(status: status, headers: headers, body: .init(asyncStream: { writer in
            do {
                try await Self.write(stream, sources: sources, range: bytes, silent: silent, ffmpeg: ffmpeg, remote: remote) { chunk in
                    try await writer.write(.buffer(ByteBuffer(data: chunk)))
                }
                try await writer.write(.end)
            } catch {
                logger.debug("A joined stream ended early: \(error)")
                try? await writer.write(.error(error))
            }
            playing.end(ticket)
        }, count: bytes.count))
    }

    /// Makes bytes `range` of `stream`, piece by piece, handing them to `send` as ffmpeg makes them:
    /// each piece exactly its frames (a file that ends early is made up with silent frames).
    /// A part with no file (gone meanwhile) is silence too; so is one on another server that stops
    /// answering.
    static func write(_ stream: JoinedStream, sources: [Int: Source], range: ClosedRange<Int>, silent: Data, ffmpeg: String,
                      remote: RemoteParts, send: (Data) async throws -> Void) async throws {
        var skip = range.lowerBound % JoinedStream.frameBytes   // into the first frame
        var left = range.count
        // Silence goes out a few seconds at a time, not frame by frame.
        let silence = (0..<256).reduce(into: Data()) { block, _ in block.append(silent) }
        for piece in stream.pieces(for: range) where left > 0 {
            var wanted = piece.frames.count * JoinedStream.frameBytes
            func give(_ data: Data) async throws {
                var data = data.prefix(wanted)
                wanted -= data.count
                if skip > 0 {
                    let dropped = min(skip, data.count)
                    data = data.dropFirst(dropped)
                    skip -= dropped
                }
                data = data.prefix(left)
                left -= data.count
                if !data.isEmpty { try await send(Data(data)) }
            }
            // The stream's last frame alone (a player reading the end for a tag before it plays):
            // silence, with no ffmpeg to start. It holds at most the last part's last 24 ms, mostly
            // its encoder's tail, or a timer's end, silent anyway.
            let last = stream.parts[piece.part]
            let finalFrame = stream.frames - 1 - last.firstFrame
            guard let source = sources[piece.part], piece.part != stream.parts.count - 1 || piece.frames != finalFrame..<(finalFrame + 1) else {
                while wanted > 0, left > 0 { try await give(silence) }
                continue
            }
            // A piece from inside its part starts half a second before it, made and dropped: a
            // fresh decoder and encoder begin with tens of milliseconds of silence, which a player
            // reading the stream in consecutive ranges (Safari) would hear at every seam. The
            // frames after them are the ones a single read makes, in the same places.
            let preroll = min(piece.frames.lowerBound, Self.prerollFrames)
            var dropping = preroll * JoinedStream.frameBytes
            // (Chunks as they come: a player switching to the stream waits for its first bytes.)
            let frames = (piece.frames.lowerBound - preroll)..<piece.frames.upperBound
            let pipe: FFmpegPipe
            var feeding: Task<Void, Never>?
            switch source {
            case .file(let file):
                pipe = try FFmpegPipe(ffmpeg: ffmpeg, arguments: stream.arguments(part: piece.part, frames: frames, file: file), gathering: 0.005)
                pipe.finishInput()
            case .remote(let url, let head):
                // From a byte a little before the piece's first second (exact for a constant rate).
                let second = stream.parts[piece.part].part.from + Double(frames.lowerBound) * JoinedStream.frameSeconds
                let start = head.start(before: max(0, second - RemoteParts.lead))
                pipe = try FFmpegPipe(ffmpeg: ffmpeg, arguments: stream.arguments(part: piece.part, frames: frames, pipedFrom: start.at, format: start.format),
                                      gathering: 0.005)
                feeding = remote.feed(url, from: start.offset, framer: start.framer, into: pipe)
            }
            defer { feeding?.cancel() }
            do {
                for await chunk in pipe.output {
                    let dropped = min(dropping, chunk.count)
                    dropping -= dropped
                    if dropped < chunk.count { try await give(Data(chunk.dropFirst(dropped))) }
                    pipe.taken()
                    if wanted == 0 || left == 0 { break }
                }
            } catch {
                pipe.stop()
                throw error
            }
            pipe.stop()
            // Frames the file did not hold (it is shorter than its length said): silence.
            while wanted > 0, left > 0 { try await give(silence) }
        }
    }

    // MARK: - Parts

    /// A part as asked: an item's key, the second of its file to start at and, in a stream's
    /// address, the seconds it plays for.
    struct Asked: Equatable {
        var item: String
        var from: Double
        var length: Double? = nil
    }

    struct Resolved {
        var asked: Asked
        var source: Source
        var part: JoinedStream.Part
    }

    /// Where a part's sound comes from.
    enum Source: Sendable {
        /// A file of the server's (its path).
        case file(String)
        /// An MP3 or M4A on another server, read through the guarded client.
        case remote(URL, RemoteParts.RemoteAudio)
    }

    enum Resolution {
        case joined(Resolved)
        case not(String)
    }

    /// `parts`: `key[@seconds[~length]]` joined by commas, at most `mostParts`.
    static func parts(_ req: Request) throws -> [Asked] {
        guard let text = try req.queryString("parts", maximumLength: 80 * mostParts), !text.isEmpty else {
            throw APIError(.badRequest, code: "invalid_field", "parts: the items to join, as key@seconds separated by commas.")
        }
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false)
        guard pieces.count <= mostParts else {
            throw APIError(.badRequest, code: "invalid_field", "parts: at most \(mostParts) items.")
        }
        return try pieces.map { piece in
            let halves = piece.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(halves[0]).lowercased()
            guard ItemKey(key) != nil || renderID(key) != nil else {
                throw APIError(.badRequest, code: "invalid_field", "parts: “\(key.prefix(60))” is not an item's key (library:<id>, podcast:<id>, speech:<render id>).")
            }
            var from = 0.0, length: Double?
            if halves.count == 2 {
                let numbers = halves[1].split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false).map { Double($0) }
                guard let first = numbers[0], first.isFinite, first >= 0, first <= 7 * 24 * 3600 else {
                    throw APIError(.badRequest, code: "invalid_field", "parts: “\(halves[1].prefix(20))” is not a second to start at.")
                }
                from = first
                if numbers.count == 2 {
                    guard let seconds = numbers[1], seconds.isFinite, seconds > 0, seconds <= 7 * 24 * 3600 else {
                        throw APIError(.badRequest, code: "invalid_field", "parts: “\(halves[1].prefix(30))” has no length of 1 ms to a week.")
                    }
                    length = seconds
                }
            }
            return Asked(item: key, from: from, length: length)
        }
    }

    /// The render a `speech:<render id>` part names; nil for any other key.
    static func renderID(_ key: String) -> UUID? {
        guard key.hasPrefix(speechPrefix) else { return nil }
        return UUID(uuidString: String(key.dropFirst(speechPrefix.count)))
    }

    static let speechPrefix = "speech:"

    /// The parts' text in an address, as the web app writes it: `key@seconds` (to the millisecond).
    static func partsText(_ parts: [Asked]) -> String {
        parts.map { part in
            let length = part.length.map { "~" + String(format: "%.3f", $0) } ?? ""
            return part.from > 0 || !length.isEmpty ? "\(part.item)@\(String(format: "%.3f", part.from))\(length)" : part.item
        }.joined(separator: ",")
    }

    /// `text` as a form's value is written (what the web app's URLSearchParams writes, so its
    /// address and the one answered here are the same string).
    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._")) ?? text
    }

    /// Parts resolved at once at most: each on another server is a request for its head.
    static let resolvingAtOnce = 6

    /// Each part's resolution, in order, `resolvingAtOnce` at a time (a LibriVox book's sections
    /// are each read from LibriVox's servers: one after another, 50 would take a while).
    func resolveAll(_ asked: [Asked], _ req: Request) async throws -> [Resolution] {
        try await withThrowingTaskGroup(of: (Int, Resolution).self) { group in
            var results = [Resolution?](repeating: nil, count: asked.count)
            var next = 0
            func add() {
                let index = next
                group.addTask { (index, try await self.resolve(asked[index], req)) }
                next += 1
            }
            while next < min(Self.resolvingAtOnce, asked.count) { add() }
            while let (index, resolution) = try await group.next() {
                results[index] = resolution
                if next < asked.count { add() }
            }
            return results.compactMap { $0 }  // (each index answered once)
        }
    }

    /// Whether `asked` can be joined, and what from: the person's library item, or the download of
    /// an episode of theirs that is ready.
    func resolve(_ asked: Asked, _ req: Request) async throws -> Resolution {
        let user = try req.user
        if let render = Self.renderID(asked.item) { return try await spokenPart(render, asked, req) }
        guard let key = ItemKey(asked.item) else { return .not("It is not an item's key.") }
        if key.kind == .librivox { return try await librivoxSection(key, asked, req) }
        guard key.part == nil, let id = UUID(uuidString: key.id) else {
            return .not("Only a whole library item or episode, or a LibriVox book's section, can be joined.")
        }
        let file: String, length: Double
        switch key.kind {
        case .library:
            guard let item = try await library.repository.on(req).find(id, ownedBy: user) else { return .not("It is not in your library.") }
            (file, length) = (library.file(of: item).path, Double(item.durationMs) / 1000)
        case .podcast:
            guard let episode = try await podcasts.on(req).episode(id),
                  try await podcasts.on(req).subscription(to: episode.podcastID, ownedBy: user) != nil else {
                return .not("It is not an episode of your podcasts.")
            }
            guard let download = try await podcasts.on(req).download(of: episode.id, ownedBy: user), download.status == .ready,
                  let duration = download.duration else {
                // Streamed from its feed: joined when it is an MP3 or an M4A.
                guard let address = episode.enclosureURL, let url = URL(string: address) else { return .not("It has no audio.") }
                return try await remotePart(url, asked)
            }
            (file, length) = (EpisodeDownload.file(download.id, config).path, duration)
        default:
            return .not("A \(key.kind.rawValue) item plays on its own.")
        }
        guard FileManager.default.fileExists(atPath: file) else { return .not("Its file is missing.") }
        guard length > 0 else { return .not("It has no sound to play.") }
        return placed(asked, .file(file), length: length)
    }

    /// A speech render of the person's once it is spoken (an article's part in Up Next): its audio file.
    private func spokenPart(_ id: UUID, _ asked: Asked, _ req: Request) async throws -> Resolution {
        guard let render = try await speechRenders.on(req).find(id, ownedBy: try req.user) else { return .not("It is not a render of yours.") }
        switch render.status {
        case .rendering: return .not("It is still being spoken.")
        case .failed: return .not("Its render failed: \(render.error ?? "unknown reason").")
        case .done: break
        }
        guard let format = AudioEncoder.Format(rawValue: render.format), let files = speech.service.files(render.cacheKey, format: format),
              let milliseconds = render.durationMs else {
            return .not("Its audio is no longer kept: speak it again.")
        }
        guard milliseconds > 0 else { return .not("It has no sound to play.") }
        return placed(asked, .file(files.audio.path), length: Double(milliseconds) / 1000)
    }

    /// `asked` from its file of `length` seconds.
    private func placed(_ asked: Asked, _ source: Source, length: Double) -> Resolution {
        let from = min(asked.from, max(0, length - JoinedStream.frameSeconds))
        return .joined(Resolved(asked: asked, source: source, part: JoinedStream.Part(name: asked.item, from: from, length: length - from)))
    }

    /// A section of a LibriVox book (`librivox:<id>/<index>`, its index in the book's sections).
    private func librivoxSection(_ key: ItemKey, _ asked: Asked, _ req: Request) async throws -> Resolution {
        _ = try req.user
        guard let index = key.part else { return .not("A LibriVox book is joined section by section.") }
        guard let id = Int(key.id) else { return .not("LibriVox has no such book.") }
        let found: LibriVoxBookInfo?
        do {
            found = try await librivoxBook(id, req)
        } catch let error as OutsideFetchError {
            return .not("LibriVox could not be reached: \(error.description)")
        }
        guard let book = found else { return .not("LibriVox has no such book.") }
        guard book.sections.indices.contains(index), let url = URL(string: book.sections[index].listenURL) else {
            return .not("The book has no such section.")
        }
        return try await remotePart(url, asked)
    }

    /// An MP3 or M4A on another server, or why it cannot be joined.
    private func remotePart(_ url: URL, _ asked: Asked) async throws -> Resolution {
        do {
            let head = try await remote.head(of: url)
            return placed(asked, .remote(url, head), length: head.duration)
        } catch let error as RemoteParts.Unjoinable {
            return .not(error.description)
        } catch let error as OutsideFetchError {
            return .not("Its file could not be reached: \(error.description)")
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return .not("Its file could not be read: \(error)")
        }
    }
}

/// The stream's frame of silence, made by ffmpeg once.
final class SilentFrame: Sendable {
    private let made = NIOLockedValueBox<Data?>(nil)

    func frame(ffmpeg: String) async throws -> Data {
        if let frame = made.withLockedValue({ $0 }) { return frame }
        let frame = try await JoinedStream.silentFrame(AudioFiles(ffmpeg: ffmpeg))
        made.withLockedValue { $0 = frame }
        return frame
    }
}
