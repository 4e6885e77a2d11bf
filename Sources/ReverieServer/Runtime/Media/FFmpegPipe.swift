import AudioRender
import Foundation
import NIOConcurrencyHelpers
import Vapor

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

    /// An HLS station's relay: the remux (`format`), or with `shaping`
    /// (`AudioFiles.shapedStreamArguments`) an MP3 of the sound at a level, ending faded.
    static func relay(ffmpeg: String, format: String, shaping: [String]?) throws -> FFmpegPipe {
        guard let shaping else { return try remux(ffmpeg: ffmpeg, format: format) }
        return try FFmpegPipe(ffmpeg: ffmpeg, arguments: ["-protocol_whitelist", "pipe"] + shaping)
    }

    /// An ffmpeg copying the sound of what it is fed (MPEG-TS, packed audio or fragmented MP4
    /// segments, one after another) into one stream of `format` on its standard output.
    static func remux(ffmpeg: String, format: String) throws -> FFmpegPipe {
        // ffmpeg reads only its standard input: whatever a segment says, it opens nothing else.
        try FFmpegPipe(ffmpeg: ffmpeg, arguments: ["-protocol_whitelist", "pipe", "-i", "pipe:0",
                                                   "-vn", "-map", "0:a:0", "-c:a", "copy", "-f", format, "pipe:1"])
    }

    /// ffmpeg with `arguments` (after `-hide_banner -loglevel error`), which must read `pipe:0` and write `pipe:1`.
    /// - Parameter gathering: seconds a chunk gathers what ffmpeg writes after its first byte (a
    ///   tenth: a low-rate live stream's frames in one chunk; less where the first byte is waited for).
    init(ffmpeg: String, arguments: [String], gathering: Double = 0.1) throws {
        guard let path = CommandRunner.locate(ffmpeg) else { throw AudioRenderError.toolMissing(ffmpeg) }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-hide_banner", "-loglevel", "error"] + arguments
        let stdin = Pipe.closedOnExec(), stdout = Pipe.closedOnExec()
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
                // What ffmpeg writes within a tenth of a second of the first byte, up to 64 KiB:
                // neither a full 64 KiB (a low-rate stream would wait half a minute for it) nor
                // each MP3 frame in a chunk of its own.
                guard let data = Self.gather(reader.fileDescriptor, within: gathering, upTo: 64 << 10) else { break }
                continuation.yield(data)
            }
            continuation.finish()
            try? reader.close()
        }
    }

    /// Blocks until `descriptor` has bytes, then reads what comes within `seconds` (up to `limit`);
    /// nil at the end of the stream or on an error.
    static func gather(_ descriptor: Int32, within seconds: Double, upTo limit: Int) -> Data? {
        var gathered = Data()
        var buffer = [UInt8](repeating: 0, count: limit)
        var deadline: Double?
        while gathered.count < limit {
            if let deadline {
                let left = Int((deadline - Self.monotonic()) * 1000)
                guard left > 0 else { break }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waiting, 1, Int32(left))
                if ready < 0 && errno == EINTR { continue }
                guard ready > 0 else { break }
            }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, limit - gathered.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return gathered.isEmpty ? nil : gathered }
            gathered.append(contentsOf: buffer[0..<count])
            if deadline == nil { deadline = Self.monotonic() + seconds }
        }
        return gathered
    }

    private static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The listener took a chunk: the reader may read another.
    func taken() { room.signal() }

    /// Sends `head` (if any) and then what ffmpeg makes to `writer` (a response body) as the
    /// listener takes it, then the end, or the error that stopped it; after that, whether ffmpeg
    /// ended or the listener went away, stops `feeding` (what writes ffmpeg's input) and ffmpeg.
    func send(to writer: any AsyncBodyStreamWriter, head: Data? = nil, feeding: Task<Void, Never>) async {
        do {
            if let head { try await writer.write(.buffer(ByteBuffer(data: head))) }
            for await chunk in output {
                try await writer.write(.buffer(ByteBuffer(data: chunk)))
                taken()
            }
            try await writer.write(.end)
        } catch {
            try? await writer.write(.error(error))
        }
        feeding.cancel()
        stop()
    }

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
