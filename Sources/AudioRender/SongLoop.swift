import Foundation

/// A section of a song played over and over for practice, A to B, with joins that neither gap
/// nor click. A moves to the nearest rising zero crossing, and B to where every channel's sample
/// and slope best match A's (each within `snapRadius`); then the section's last `crossfade`
/// seconds fade from the music before B into the music just before A, so its last sample is
/// the one that comes before A in the song and the join from B to A is as smooth as the music.
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
    /// How long the end of the section takes to turn into what comes before A: 10 ms.
    public static let crossfade = 0.01

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

    /// The frame within `radius` of `frame` that `a` best follows on from: each channel's value
    /// and slope there closest to those at `a`.
    public func bestMatch(for a: Int, near frame: Int, radius: Int) -> Int {
        guard a >= 1, a < frameCount else { return frame }
        var best = frame, bestCost = Float.infinity
        for candidate in max(1, frame - radius)...max(1, min(frameCount - 1, frame + radius)) where candidate > a {
            var cost: Float = 0
            for channel in 0..<channels {
                let value = samples[candidate * channels + channel] - samples[a * channels + channel]
                let slope = (samples[candidate * channels + channel] - samples[(candidate - 1) * channels + channel])
                    - (samples[a * channels + channel] - samples[(a - 1) * channels + channel])
                cost += value * value + slope * slope
            }
            // The nearer of two equal matches, so a loop is never longer than it needs to be.
            if cost < bestCost || (cost == bestCost && abs(candidate - frame) < abs(best - frame)) { best = candidate; bestCost = cost }
        }
        return best
    }

    /// The loop's frames for `start..<end`: A at a rising zero crossing, B where A follows on best.
    public func snappedRange(from start: Int, to end: Int) -> Range<Int> {
        let radius = Int((Self.snapRadius * Double(sampleRate)).rounded())
        let a = risingZeroCrossing(near: start, radius: radius)
        var b = bestMatch(for: a, near: min(end, frameCount - 1), radius: radius)
        if b <= a { b = min(frameCount, max(a + 1, end)) }
        return a..<b
    }

    /// The frames of `range`, their last `crossfade` seconds faded (a raised cosine) into the
    /// frames just before the range, so the section runs back into its start without a step.
    public func section(_ range: Range<Int>) -> [Float] {
        var section = Array(samples[(range.lowerBound * channels)..<(range.upperBound * channels)])
        let length = min(Int((Self.crossfade * Double(sampleRate)).rounded()), range.lowerBound, range.count / 2)
        guard length > 1 else { return section }
        for index in 0..<length {
            let weight = Float(0.5 - 0.5 * cos(Double.pi * Double(index) / Double(length - 1)))
            let at = range.count - length + index, before = range.lowerBound - length + index
            for channel in 0..<channels {
                section[at * channels + channel] = section[at * channels + channel] * (1 - weight) + samples[before * channels + channel] * weight
            }
        }
        return section
    }

    /// `range` played `repeats` times, back to back with no sample added or lost, each pass
    /// ending in the fade into its start (none when the range starts the audio: nothing
    /// comes before it to fade into).
    public func repeated(_ range: Range<Int>, times repeats: Int) -> SongLoop {
        let section = section(range)
        var out: [Float] = []
        out.reserveCapacity(section.count * max(0, repeats))
        for _ in 0..<max(0, repeats) { out.append(contentsOf: section) }
        return SongLoop(samples: out, channels: channels, sampleRate: sampleRate)
    }

    /// How much any channel jumps across each join of a loop `length` frames long (from the
    /// last frame of one pass to the first of the next), and the largest jump between
    /// neighbouring frames anywhere inside a pass: a join that clicks jumps more than the music.
    public func joins(loopLength length: Int) -> (joins: [Float], largestInside: Float) {
        guard length > 1 else { return ([], 0) }
        var joins: [Float] = []
        var inside: Float = 0
        for frame in 1..<frameCount {
            var step: Float = 0
            for channel in 0..<channels { step = max(step, abs(samples[frame * channels + channel] - samples[(frame - 1) * channels + channel])) }
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
