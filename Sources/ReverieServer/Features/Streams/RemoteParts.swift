import Foundation
import MediaFormats
import NIOCore
import Vapor

/// Parts of joined streams that live on another server: a LibriVox section, an episode streamed
/// from its feed. Each is an MP3 or an M4A read through the guarded client, never fetched whole:
/// an MP3's first bytes say how long it is and where its audio starts (`MP3Head`), an M4A's
/// `moov` box (first or last, found by its boxes' headers) lists its frames (`MP4Audio`), each
/// kept a while by address; a piece of the stream is made from bytes fetched with a Range near the
/// second it starts at, fed to ffmpeg as they come (an M4A's frames as ADTS, which ffmpeg reads
/// from a pipe starting anywhere).
struct RemoteParts: Sendable {
    let client: GuardedHTTPClient
    /// The most bytes read of one file.
    let maxBytes: Int
    let heads = Recent<String, MP3Head>(lifetime: .minutes(30), capacity: 2_000)
    /// M4As' tables (a few hundred KB an hour): fewer kept, and none past `keptTableBytes`.
    let movies = Recent<String, MP4Audio>(lifetime: .minutes(30), capacity: 32)
    static let keptTableBytes = 4 << 20

    /// A file on another server, as far as its first bytes (or its `moov`) tell.
    enum RemoteAudio: Sendable {
        case mp3(MP3Head)
        case mp4(MP4Audio)

        var duration: Double {
            switch self {
            case .mp3(let head): head.duration
            case .mp4(let audio): audio.duration
            }
        }

        /// Where to read from for second `seconds`: the byte, the second of the file the audio
        /// fed from there starts at, ffmpeg's name for what it is fed, and (an M4A) what turns the
        /// bytes into it.
        func start(before seconds: Double) -> (offset: Int64, at: Double, format: String, framer: ADTSFramer?) {
            switch self {
            case .mp3(let head):
                let (offset, at) = head.byte(before: seconds)
                return (offset, at, "mp3", nil)
            case .mp4(let audio):
                let (index, at) = audio.frame(before: seconds)
                let framer = ADTSFramer(audio, from: index)
                return (framer.startOffset, at, "aac", framer)
            }
        }
    }

    /// The most reads of an M4A's box headers to find its `moov` (the boxes before it: `ftyp`,
    /// `free`, `mdat`, …).
    static let movieSearchReads = 8

    /// Seconds before a piece's first that its bytes are fetched from: the decoder finds a frame
    /// in them and fills its bit reservoir before the second it must be right from.
    static let lead = 1.0

    /// Why a file on another server cannot be joined, in a sentence.
    struct Unjoinable: Error, CustomStringConvertible {
        let description: String
    }

    /// The MP3 or M4A at `url`, read from its first bytes (and an M4A's `moov`).
    func head(of url: URL) async throws -> RemoteAudio {
        let key = url.absoluteString
        if let known = heads.value(for: key) { return .mp3(known) }
        if let known = movies.value(for: key) { return .mp4(known) }
        let generation = (heads.generation, movies.generation)
        let first = try await bytes(of: url, from: 0, count: MP3Head.headBytes)
        guard let size = first.size, size > 0 else {
            throw Unjoinable(description: "Its server does not say how long the file is.")
        }
        guard size <= Int64(maxBytes) else {
            throw Unjoinable(description: "Its file is larger than the server reads (\(maxBytes >> 20) MB).")
        }
        let audio: RemoteAudio
        do {
            if MP4Audio.sniff(first.bytes) {
                audio = .mp4(try await movie(of: url, first: first.bytes, size: size))
            } else {
                let tags = try MP3Head.tagsEnd(first.bytes)
                if tags >= Int64(first.bytes.count), tags < size {
                    // Tags longer than the head (a large cover): the audio is looked for after them.
                    audio = .mp3(try MP3Head.read(try await bytes(of: url, from: tags, count: MP3Head.headBytes).bytes, at: tags, size: size))
                } else {
                    audio = .mp3(try MP3Head.read(first.bytes, size: size))
                }
            }
        } catch let error as MediaFormatsError {
            throw Unjoinable(description: "It is not an MP3 or M4A the server can join (\(error.description)).")
        }
        guard audio.duration > 0 else { throw Unjoinable(description: "It has no sound to play.") }
        switch audio {
        case .mp3(let head): heads.store(head, for: key, readAt: generation.0)
        case .mp4(let movie) where movie.tableBytes <= Self.keptTableBytes: movies.store(movie, for: key, readAt: generation.1)
        case .mp4: break  // (read again when asked: a table this large is rare, and kept it would crowd out the rest)
        }
        return audio
    }

    /// An M4A's sound track, from its `moov` box: found by reading its boxes' headers from
    /// `first` (its first bytes) on, then read whole where it is. Each read past the first must be
    /// answered with its range: from a server that sends the whole file each time, a `moov` at
    /// the end would cost the file several times over.
    private func movie(of url: URL, first: [UInt8], size: Int64) async throws -> MP4Audio {
        var bytes = first, base: Int64 = 0
        func read(from offset: Int64, count: Int) async throws -> [UInt8] {
            let answer = try await self.bytes(of: url, from: offset, count: Int(min(Int64(count), size - offset)))
            guard answer.ranged else {
                throw Unjoinable(description: "Its server does not send parts of the file, and its M4A's index is not at its start.")
            }
            return answer.bytes
        }
        for _ in 0..<Self.movieSearchReads {
            switch try MP4Audio.findMovie(in: bytes, at: base, size: size) {
            case .movie(let range):
                let movie: [UInt8]
                if range.lowerBound >= base, range.upperBound <= base + Int64(bytes.count) {
                    movie = Array(bytes[Int(range.lowerBound - base)..<Int(range.upperBound - base)])
                } else {
                    movie = try await read(from: range.lowerBound, count: range.count)
                    guard movie.count == range.count else { throw MediaFormatsError.malformed("its 'moov' box is cut short") }
                }
                return try MP4Audio.read(movie: movie, size: size)
            case .readFrom(let offset):
                (bytes, base) = (try await read(from: offset, count: 64 << 10), offset)
            }
        }
        throw MediaFormatsError.malformed("its 'moov' box was not found in \(Self.movieSearchReads) reads")
    }

    /// Up to `count` bytes of `url` from byte `from`, and the file's size when its server says it.
    /// `ranged`: the server answered with the range (206), not the whole file.
    private func bytes(of url: URL, from: Int64, count: Int) async throws -> (bytes: [UInt8], size: Int64?, ranged: Bool) {
        // A server that refuses a range past a short file's end (as some do) is asked for all of it.
        var answer: (status: Int, headers: HTTPHeaders, body: Handoff)
        do {
            answer = try await client.stream(url, range: "bytes=\(from)-\(from + Int64(max(1, count)) - 1)", maxBytes: maxBytes)
        } catch OutsideFetchError.status(400, _) {
            answer = try await client.stream(url, range: nil, maxBytes: maxBytes)
        }
        if answer.status == 416 {
            await answer.body.cancel()
            answer = try await client.stream(url, range: nil, maxBytes: maxBytes)
        }
        var collected: [UInt8] = []
        var skip = 0
        let size: Int64?
        if answer.status == 206 {
            size = answer.headers.first(name: .contentRange).flatMap(Self.total)
        } else {
            // The whole file (a server that does not do ranges): the bytes before `from` are dropped.
            size = answer.headers.first(name: .contentLength).flatMap { Int64($0) }
            skip = Int(from)
        }
        do {
            while collected.count < count, let chunk = try await answer.body.next() {
                collected.append(contentsOf: Self.past(&skip, in: chunk).prefix(count - collected.count))
            }
        } catch {
            await answer.body.cancel()
            throw error
        }
        await answer.body.cancel()
        return (collected, size, answer.status == 206)
    }

    /// The bytes of `chunk` after the first `skip` (those before the byte asked for, from a server
    /// that answered the whole file where a range was asked), counting `skip` down.
    static func past(_ skip: inout Int, in chunk: ByteBuffer) -> ByteBufferView.SubSequence {
        let view = chunk.readableBytesView
        let dropped = min(skip, view.count)
        skip -= dropped
        return view.dropFirst(dropped)
    }

    /// The size in `Content-Range: bytes START-END/SIZE`.
    static func total(_ value: String) -> Int64? {
        value.split(separator: "/").last.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Feeds `pipe` the bytes of `url` from `offset` to its end as they come (until it is stopped,
    /// or the task cancelled), then closes its input. A range that does not start where it was
    /// asked (a file changed since its head was read) feeds nothing: the piece is silence.
    /// With a `framer`, the bytes go through it (an M4A's frames as ADTS) and the feeding ends
    /// with the frames.
    func feed(_ url: URL, from offset: Int64, framer: ADTSFramer? = nil, into pipe: FFmpegPipe) -> Task<Void, Never> {
        Task {
            var framer = framer
            do {
                let answer = try await client.stream(url, range: "bytes=\(offset)-", maxBytes: maxBytes)
                let body = answer.body
                try await withTaskCancellationHandler {
                    var skip = 0
                    if answer.status == 206 {
                        guard GuardedHTTPClient.rangeStart(answer.headers) == Int(offset) else { return }
                    } else {
                        skip = Int(offset)  // the whole file: the bytes before `offset` are dropped
                    }
                    while !Task.isCancelled, framer?.finished != true, let chunk = try await body.next() {
                        let bytes = Self.past(&skip, in: chunk)
                        let fed = framer != nil ? Data(framer!.take(bytes)) : Data(bytes)
                        if !fed.isEmpty { _ = try await pipe.write(fed) }
                    }
                } onCancel: {
                    Task { await body.cancel() }
                }
                await body.cancel()
            } catch {}
            pipe.finishInput()
        }
    }
}
