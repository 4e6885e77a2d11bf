import Foundation

/// Compressed audio files made by ffmpeg.
public struct AudioEncoder: Sendable {
    /// An output format.
    public enum Format: String, Sendable, CaseIterable, Codable {
        /// AAC in an MPEG-4 container: plays everywhere, including iOS lock screens.
        case m4a
        /// Opus in Ogg: smallest for speech.
        case opus
        case mp3

        public var fileExtension: String { rawValue }

        /// MIME type for HTTP.
        public var contentType: String {
            switch self {
            case .m4a: "audio/mp4"
            case .opus: "audio/ogg"
            case .mp3: "audio/mpeg"
            }
        }

        /// The format a file name's extension names.
        public init?(fileName: String) {
            switch (fileName as NSString).pathExtension.lowercased() {
            case "m4a", "mp4", "aac": self = .m4a
            case "opus", "ogg": self = .opus
            case "mp3": self = .mp3
            default: return nil
            }
        }

        /// ffmpeg's name for the container (`-f`).
        var container: String {
            switch self {
            case .m4a: "mp4"
            case .opus: "ogg"
            case .mp3: "mp3"
            }
        }

        var codecArguments: [String] {
            switch self {
            // ffmpeg's fast AAC coder: at 96 kb/s speech sounds the same, and it encodes three to
            // six times sooner than the default (two-loop) coder.
            case .m4a: ["-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k", "-movflags", "+faststart"]
            case .opus: ["-c:a", "libopus", "-b:a", "48k", "-application", "voip"]
            case .mp3: ["-c:a", "libmp3lame", "-q:a", "4"]
            }
        }
    }

    public var runner: CommandRunner
    /// The ffmpeg program (a name on PATH or a path).
    public var ffmpeg: String

    public init(runner: CommandRunner = .live, ffmpeg: String = "ffmpeg") {
        self.runner = runner
        self.ffmpeg = ffmpeg
    }

    /// Encodes `buffer` into `format` at `destination` (written to a temporary name, then moved in
    /// place, so a reader never sees half a file).
    public func encode(_ buffer: AudioBuffer, as format: Format, to destination: URL) async throws {
        try await AudioFiles(runner: runner, ffmpeg: ffmpeg).ffmpegRun(
            ["-f", "wav", "-i", "pipe:0"] + format.codecArguments + ["-f", format.container],
            input: WAVFile.encode(buffer), to: destination)
    }

    /// An encoder that takes its audio a stretch at a time, so ffmpeg encodes while the rest is
    /// still being made. `finish()` moves the file into place; a stream never finished leaves
    /// nothing behind.
    public func stream(_ format: Format, sampleRate: Int, to destination: URL) throws -> Stream {
        try Stream(ffmpeg: ffmpeg, output: format.codecArguments + ["-f", format.container], sampleRate: sampleRate, destination: destination)
    }

    /// ffmpeg's output settings for a live MP3: constant rate with no Xing frame and no tag (nothing
    /// at its start stands for a length not known yet), each frame written out as it is made.
    public static let liveMP3Output = ["-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "0", "-write_xing", "0",
                                       "-flush_packets", "1", "-f", "mp3"]

    /// A live MP3 written at `destination` itself as it is encoded, for readers who send it on
    /// while it grows (a speech render heard as it is spoken). It is not moved anywhere at its end;
    /// one cancelled is removed.
    public func liveMP3(sampleRate: Int, to destination: URL) throws -> Stream {
        try Stream(ffmpeg: ffmpeg, output: Self.liveMP3Output, sampleRate: sampleRate, destination: destination, inPlace: true)
    }

    /// A stream to `destination` started by the first stretch written (whose sample rate it
    /// takes), for audio made a stretch at a time by one task.
    public func sink(_ format: Format, to destination: URL) -> Sink {
        Sink(start: { try self.stream(format, sampleRate: $0, to: destination) },
             whole: { try await self.encode($0, as: format, to: destination) })
    }

    /// A live MP3 (`liveMP3`) at `destination`, started by the first stretch written.
    public func liveSink(to destination: URL) -> Sink {
        Sink(start: { try self.liveMP3(sampleRate: $0, to: destination) }, whole: { _ in })
    }

    public final class Sink: @unchecked Sendable {
        private let start: (Int) throws -> Stream
        private let whole: (AudioBuffer) async throws -> Void
        private var stream: Stream?

        init(start: @escaping (Int) throws -> Stream, whole: @escaping (AudioBuffer) async throws -> Void) {
            (self.start, self.whole) = (start, whole)
        }

        /// Queues a stretch for the file; true for the first.
        @discardableResult
        public func write(_ buffer: AudioBuffer) throws -> Bool {
            let first = stream == nil
            if first { stream = try start(buffer.sampleRate) }
            stream?.write(buffer)
            return first
        }

        /// Finishes the file; when nothing was written, encodes `whole` instead (a live sink: nothing).
        public func finish(else whole: @autoclosure () -> AudioBuffer) async throws {
            if let stream { try await stream.finish() } else { try await self.whole(whole()) }
        }

        /// Stops, leaving nothing behind.
        public func cancel() { stream?.cancel() }
    }

    /// One running ffmpeg fed 32-bit float samples through its standard input.
    public final class Stream: @unchecked Sendable {
        private let process = Process()
        private let input: FileHandle
        private let partial: URL
        private let errors: URL
        private let destination: URL
        /// Written at `destination` itself (a live file read as it grows), not moved there at the end.
        private let inPlace: Bool
        /// Writes go through one queue, in order, off the caller's thread (a full pipe blocks).
        private let queue = DispatchQueue(label: "reverie.encoder-stream")
        public let sampleRate: Int

        init(ffmpeg: String, output: [String], sampleRate: Int, destination: URL, inPlace: Bool = false) throws {
            guard let path = CommandRunner.locate(ffmpeg) else { throw AudioRenderError.toolMissing(ffmpeg) }
            let folder = destination.deletingLastPathComponent()
            let name = ".\(destination.lastPathComponent).\(UUID().uuidString)"
            partial = inPlace ? destination : folder.appendingPathComponent(name + ".part")
            errors = folder.appendingPathComponent(name + ".log")
            self.destination = destination
            self.inPlace = inPlace
            self.sampleRate = sampleRate
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: path)
            // (Live: raw samples need no probing, and probing would hold the output back until
            // seconds of audio had come; the file starts with the first stretch.)
            let probe = inPlace ? ["-probesize", "32", "-analyzeduration", "0"] : []
            process.arguments = ["-hide_banner", "-loglevel", "error", "-y"] + probe
                + ["-f", "f32le", "-ar", String(sampleRate), "-ac", "1", "-i", "pipe:0"] + output + [partial.path]
            let pipe = Pipe.closedOnExec()
            process.standardInput = pipe
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: errors)
            input = pipe.fileHandleForWriting
            signal(SIGPIPE, SIG_IGN)   // ffmpeg failing must not take the server with it
            try process.run()
        }

        /// Queues `buffer` for the file and returns at once: ffmpeg reads it at its own pace
        /// while the caller goes on making the next stretch. A write that fails (ffmpeg stopped)
        /// is reported by `finish()`.
        public func write(_ buffer: AudioBuffer) {
            let buffer = buffer.sampleRate == sampleRate ? buffer : buffer.resampled(to: sampleRate)
            let bytes = buffer.samples.withUnsafeBufferPointer { Data(buffer: $0) }
            queue.async {
                guard self.failure == nil else { return }
                do {
                    try self.input.write(contentsOf: bytes)
                } catch {
                    self.failure = AudioRenderError.toolFailed(tool: "ffmpeg", status: -1, message: "ffmpeg stopped reading: \(self.message)")
                }
            }
        }

        /// Set on the queue when a write fails.
        private var failure: AudioRenderError?

        /// Ends the input, waits for ffmpeg and moves the file into place.
        public func finish() async throws {
            let (status, failure): (Int32, AudioRenderError?) = await withCheckedContinuation { continuation in
                queue.async {   // after every write queued before
                    try? self.input.close()
                    self.process.waitUntilExit()
                    continuation.resume(returning: (self.process.terminationStatus, self.failure))
                }
            }
            if inPlace, failure == nil, status == 0 {
                try? FileManager.default.removeItem(at: errors)
                return
            }
            defer { cleanUp() }
            if let failure { throw failure }
            guard status == 0 else { throw AudioRenderError.toolFailed(tool: "ffmpeg", status: status, message: message) }
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.moveItem(at: partial, to: destination)
        }

        /// Stops ffmpeg and removes what it wrote.
        public func cancel() {
            queue.async {
                try? self.input.close()
                if self.process.isRunning { self.process.terminate() }
                self.process.waitUntilExit()
                self.cleanUp()
            }
        }

        private var message: String {
            String(decoding: ((try? Data(contentsOf: errors)) ?? Data()).suffix(500), as: UTF8.self)
        }

        private func cleanUp() {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: errors)
        }
    }
}
