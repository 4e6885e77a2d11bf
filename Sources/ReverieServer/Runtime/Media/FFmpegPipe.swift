import AudioRender
import Foundation
import NIOConcurrencyHelpers

/// One ffmpeg fed through its standard input, what it writes handed on as it writes it: the radio's
/// remux relay (`remux`) and Bedside's night stream (PCM in, MP3 out).
final class FFmpegPipe: @unchecked Sendable {
    private let process = Process()
    private let input: FileHandle
    /// What ffmpeg writes, as it writes it; finished when it exits.
    let output: AsyncStream<Data>
    /// Writes go through one queue, in order, off the caller's thread (a full pipe blocks).
    private let queue = DispatchQueue(label: "reverie.ffmpeg-pipe")
    /// Chunks read ahead of the listener at most: past them the reader waits, ffmpeg's pipe
    /// fills, ffmpeg stops reading, and the fetching waits in `write`.
    /// (Made at 0 and given its room in `init`: a semaphore freed below its starting value traps.)
    private let room = DispatchSemaphore(value: 0)
    private let stopped = NIOLockedValueBox(false)

    /// An ffmpeg copying the sound of what it is fed (MPEG-TS, packed audio or fragmented MP4
    /// segments, one after another) into one stream of `format` on its standard output.
    static func remux(ffmpeg: String, format: String) throws -> FFmpegPipe {
        // ffmpeg reads only its standard input: whatever a segment says, it opens nothing else.
        try FFmpegPipe(ffmpeg: ffmpeg, arguments: ["-protocol_whitelist", "pipe", "-i", "pipe:0",
                                                   "-vn", "-map", "0:a:0", "-c:a", "copy", "-f", format, "pipe:1"])
    }

    /// ffmpeg with `arguments` (after `-hide_banner -loglevel error`), which must read `pipe:0` and write `pipe:1`.
    init(ffmpeg: String, arguments: [String]) throws {
        guard let path = CommandRunner.locate(ffmpeg) else { throw AudioRenderError.toolMissing(ffmpeg) }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-hide_banner", "-loglevel", "error"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        input = stdin.fileHandleForWriting
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        output = stream
        signal(SIGPIPE, SIG_IGN)   // ffmpeg stopping must not take the server with it
        try process.run()
        let reader = stdout.fileHandleForReading
        for _ in 0..<8 { room.signal() }
        let room = room, stopped = stopped
        // A thread of its own: it spends the session waiting in read().
        Thread.detachNewThread {
            while !stopped.withLockedValue({ $0 }) {
                room.wait()
                // What the pipe holds now (up to 64 KiB), not a full 64 KiB: a low-rate stream
                // (Bedside's night, 2 KB a second) is handed on as ffmpeg writes it.
                var chunk = [UInt8](repeating: 0, count: 64 << 10)
                let count = chunk.withUnsafeMutableBytes { read(reader.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { room.signal(); continue }
                guard count > 0 else { break }
                continuation.yield(Data(chunk.prefix(count)))
            }
            continuation.finish()
            try? reader.close()
        }
    }

    /// The listener took a chunk: the reader may read another.
    func taken() { room.signal() }

    /// Writes `data` to ffmpeg (waiting while its pipe is full); answers the bytes written.
    func write(_ data: Data) async throws -> Int {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try self.input.write(contentsOf: data)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return data.count
    }

    /// No more input: ffmpeg finishes what it has and exits.
    func finishInput() {
        queue.async { try? self.input.close() }
    }

    /// Stops ffmpeg now (not behind a write its full pipe holds up: that write then fails), and
    /// lets the reader go.
    func stop() {
        stopped.withLockedValue { $0 = true }
        if process.isRunning { process.terminate() }
        room.signal()
        queue.async {
            try? self.input.close()
            self.process.waitUntilExit()
        }
    }
}
