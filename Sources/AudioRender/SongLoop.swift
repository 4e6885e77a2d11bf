import Foundation

/// A section of a song played over and over for practice, A to B, with joins that neither gap
/// nor click: both ends are moved to the nearest rising zero crossing (within `snapRadius`), so
/// the last sample before B runs into A as it would run into the sample after it.
///
/// The web player snaps the same way on the buffer it decodes (`Web/write/loop.js`); this is
/// the server's half, for the loop rendered to a file.
public struct SongLoop: Sendable, Equatable {
    /// Interleaved samples, `channels` to a frame.
    public var samples: [Float]
    public var channels: Int
    public var sampleRate: Int

    /// How far an end may move to reach a zero crossing: 5 ms, well under what an ear places.
    public static let snapRadius = 0.005

    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = max(1, channels)
        self.sampleRate = sampleRate
    }

    public var frameCount: Int { samples.count / channels }

    /// The channels' sum at `frame`.
    func mix(_ frame: Int) -> Float {
        var sum: Float = 0
        for channel in 0..<channels { sum += samples[frame * channels + channel] }
        return sum
    }

    /// The frame nearest `frame` (within `radius` frames) where the mix rises through zero: the
    /// frame before it is below zero, it is at or above. `frame` itself when there is none.
    public func risingZeroCrossing(near frame: Int, radius: Int) -> Int {
        let frame = min(max(frame, 1), max(1, frameCount - 1))
        guard frameCount > 2 else { return frame }
        for distance in 0...radius {
            for candidate in distance == 0 ? [frame] : [frame - distance, frame + distance]
            where candidate >= 1 && candidate < frameCount && mix(candidate - 1) < 0 && mix(candidate) >= 0 {
                return candidate
            }
        }
        return frame
    }

    /// The loop's frames, `start..<end` snapped to rising zero crossings.
    public func snappedRange(from start: Int, to end: Int) -> Range<Int> {
        let radius = Int((Self.snapRadius * Double(sampleRate)).rounded())
        let a = risingZeroCrossing(near: start, radius: radius)
        var b = risingZeroCrossing(near: end, radius: radius)
        if b <= a { b = min(frameCount, max(a + 1, end)) }
        return a..<b
    }

    /// `range` played `repeats` times, back to back with no sample added or lost.
    public func repeated(_ range: Range<Int>, times repeats: Int) -> SongLoop {
        let section = Array(samples[(range.lowerBound * channels)..<(range.upperBound * channels)])
        var out: [Float] = []
        out.reserveCapacity(section.count * max(0, repeats))
        for _ in 0..<max(0, repeats) { out.append(contentsOf: section) }
        return SongLoop(samples: out, channels: channels, sampleRate: sampleRate)
    }

    /// How much the mix jumps across each join of a loop `length` frames long (from the last
    /// frame of one pass to the first of the next), and the largest jump between neighbouring
    /// frames anywhere inside a pass: a join that clicks jumps far more than the music does.
    public func joins(loopLength length: Int) -> (joins: [Float], largestInside: Float) {
        guard length > 1 else { return ([], 0) }
        var joins: [Float] = []
        var inside: Float = 0
        for frame in 1..<frameCount {
            let step = abs(mix(frame) - mix(frame - 1))
            if frame % length == 0 { joins.append(step) } else { inside = max(inside, step) }
        }
        return (joins, inside)
    }
}

extension AudioFiles {
    /// The file's audio from `start` to `end` seconds as 32-bit float samples, interleaved, at its
    /// own sample rate and channel count (at most two), cut sample-exactly after decoding.
    public func decodeSection(_ file: URL, from start: Double, to end: Double) async throws -> SongLoop {
        let probe = try await probe(file)
        let channels = min(2, max(1, probe.channels))
        let first = max(0, Int((start * Double(probe.sampleRate)).rounded()))
        let last = max(first + 1, Int((end * Double(probe.sampleRate)).rounded()))
        let result = try await runner.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-i", file.path, "-map", "0:a:0",
                                                   "-af", "atrim=start_sample=\(first):end_sample=\(last)",
                                                   "-ac", String(channels), "-f", "f32le", "-acodec", "pcm_f32le", "pipe:1"], nil)
        guard result.status == 0 else {
            throw AudioRenderError.toolFailed(tool: "ffmpeg", status: result.status, message: String(decoding: result.errors.suffix(500), as: UTF8.self))
        }
        let samples = result.output.withUnsafeBytes { raw in Array(raw.bindMemory(to: Float.self)) }
        return SongLoop(samples: samples, channels: channels, sampleRate: probe.sampleRate)
    }

    /// Writes `loop` as FLAC: lossless, so every join in the file is exactly as rendered.
    public func writeFLAC(_ loop: SongLoop, to destination: URL) async throws {
        let bytes = loop.samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try await ffmpegRun(["-f", "f32le", "-ar", String(loop.sampleRate), "-ac", String(loop.channels), "-i", "pipe:0",
                             "-c:a", "flac", "-sample_fmt", "s32", "-f", "flac"], input: bytes, to: destination)
    }

    /// `source` played at `speed` (0.5 to 2) with its pitch kept (ffmpeg's `atempo`), as FLAC at
    /// the source's sample rate, so a player can loop it sample-exactly.
    public func changeTempo(_ source: URL, speed: Double, into destination: URL) async throws {
        try await ffmpegRun(["-i", source.path, "-map", "0:a:0", "-vn", "-af", String(format: "atempo=%.4f", speed),
                             "-c:a", "flac", "-f", "flac"], to: destination)
    }
}
