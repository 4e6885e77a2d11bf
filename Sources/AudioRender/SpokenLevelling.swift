import Foundation

/// Which parts of an original a processed file kept, and how times in one are found in the other.
/// Chapters, transcripts and saved places stay in the original's seconds; the player maps them.
public struct TimeMap: Sendable, Equatable, Codable {
    /// Kept stretches of the original, `[start, end)` in seconds, in order and apart. Empty: all
    /// of it (nothing was cut).
    public var kept: [[Double]]

    public init(kept: [[Double]]) {
        self.kept = kept
    }

    public static let identity = TimeMap(kept: [])

    /// Seconds the cuts took out (of an original `duration` long).
    public func removed(from duration: Double) -> Double {
        kept.isEmpty ? 0 : max(0, duration - kept.reduce(0) { $0 + ($1[1] - $1[0]) })
    }

    /// Where `original` seconds of the original plays in the processed file (a time inside a cut
    /// plays where the cut is).
    public func processed(_ original: Double) -> Double {
        guard !kept.isEmpty else { return original }
        var before = 0.0
        for part in kept {
            if original < part[0] { return before }
            if original < part[1] { return before + original - part[0] }
            before += part[1] - part[0]
        }
        return before
    }

    /// What second of the original `processed` seconds of the processed file is.
    public func original(_ processed: Double) -> Double {
        guard !kept.isEmpty else { return processed }
        var before = 0.0
        for part in kept {
            let length = part[1] - part[0]
            if processed < before + length { return part[0] + max(0, processed - before) }
            before += length
        }
        return kept.last.map { $0[1] } ?? processed
    }
}

/// Spoken audio brought to one loudness (−16 LUFS, what spoken-word services aim for), and on
/// request its long silences shortened, conservatively: a pause is only silence when it is far
/// quieter than the show's own speech, so a quietly mixed show keeps every word.
public struct SpokenLevelling: Sendable {
    public struct Result: Sendable, Equatable {
        /// The original's integrated loudness.
        public var measured: Double
        public var duration: Double
        public var map: TimeMap
    }

    /// Silence is what stays this far under the show's integrated loudness (and never above
    /// `loudestSilence`), measured over 400 ms windows.
    public static let silenceBelowShow = 25.0
    public static let loudestSilence = -45.0
    /// Only quiet stretches this long are shortened, and each keeps `keep` seconds at both ends
    /// (so no word's start or fading end is touched): a 2 s pause becomes 1 s, a 10 s one 1 s.
    public static let shortestCut = 2.0
    public static let keep = 0.5
    /// Cut points fall on this grid (the encoder takes whole 10 ms frames), so the map is exact.
    static let grid = 0.01
    static let cutsPerFilter = 12

    public var files: AudioFiles

    public init(files: AudioFiles = AudioFiles()) {
        self.files = files
    }

    /// Reads `source`, writes `destination` (mono MP3, 64 kb/s at 44.1 kHz: small, and seekable
    /// to the byte; LAME's faster quality setting 7, plenty for speech at this rate, so an hour
    /// takes seconds), levelled to `target`, with silences shortened when `trimSilence`.
    public func process(_ source: URL, trimSilence: Bool, target: Double = -16, into destination: URL) async throws -> Result {
        let analysis = try await analyse(source)
        let gain = target - analysis.integrated
        var map = TimeMap.identity
        var filters = ["aresample=44100"]
        if trimSilence {
            map = Self.keptParts(momentary: analysis.momentary, integrated: analysis.integrated, duration: analysis.duration)
            if !map.kept.isEmpty {
                // 10 ms frames, each kept or dropped whole: its start is on the grid, so testing
                // the start against the cut points (half a frame early, clear of rounding) is exact.
                // The cuts go in groups (ffmpeg's expressions cannot nest a long sum): a frame stays
                // when no group's cut holds it.
                var cuts: [String] = []
                if map.kept[0][0] > 0 { cuts.append(String(format: "between(t,%.3f,%.3f)", -1.0, map.kept[0][0] - Self.grid / 2)) }
                for (before, after) in zip(map.kept, map.kept.dropFirst()) {
                    cuts.append(String(format: "between(t,%.3f,%.3f)", before[1] - Self.grid / 2, after[0] - Self.grid * 0.6))
                }
                filters.append("asetnsamples=n=441:p=0")
                for start in stride(from: 0, to: cuts.count, by: Self.cutsPerFilter) {
                    filters.append("aselect='not(\(cuts[start..<min(cuts.count, start + Self.cutsPerFilter)].joined(separator: "+")))'")
                }
                filters.append("asetpts=N/SR/TB")
            }
        }
        func encode(_ gain: Double) async throws {
            let chain = filters + [String(format: "volume=%.2fdB,alimiter=limit=0.891:level=false", gain)]
            try await files.ffmpegRun(["-i", source.path, "-map", "0:a:0", "-vn", "-ac", "1", "-af", chain.joined(separator: ","),
                                       "-c:a", "libmp3lame", "-b:a", "64k", "-compression_level", "7", "-ar", "44100", "-write_xing", "1", "-f", "mp3"], to: destination)
        }
        try await encode(gain)
        // Peaks the gain pushes past −1 dBFS are limited, which takes loudness away (a quiet show
        // with sharp consonants can lose a decibel or more): measured again, and the shortfall made up.
        if analysis.peak + gain > -1.5 {
            let reached = try await files.loudness(of: destination)
            if abs(reached - target) > 0.5 { try await encode(gain + min(6, target - reached)) }
        }
        return Result(measured: analysis.integrated, duration: analysis.duration, map: map)
    }

    struct Analysis {
        var integrated: Double
        /// The highest sample, dBFS.
        var peak: Double
        var duration: Double
        /// (end time of a 400 ms window, its loudness), every 100 ms.
        var momentary: [(Double, Double)]
    }

    /// One pass of ffmpeg's EBU R128 meter: the integrated loudness and the momentary loudness
    /// every 100 ms.
    func analyse(_ source: URL) async throws -> Analysis {
        let result = try await files.runner.run(files.ffmpeg, ["-hide_banner", "-nostats", "-v", "verbose", "-i", source.path, "-map", "0:a:0",
                                                               "-ac", "1", "-af", "ebur128=framelog=verbose:peak=sample", "-f", "null", "-"], nil)
        guard result.status == 0 else {
            throw AudioRenderError.toolFailed(tool: "ffmpeg", status: result.status, message: String(decoding: result.errors.suffix(500), as: UTF8.self))
        }
        var momentary: [(Double, Double)] = []
        var integrated: Double?
        var peak = 0.0
        var inPeak = false
        var length: Double?
        for line in String(decoding: result.errors, as: UTF8.self).split(separator: "\n") {
            if let t = line.range(of: "] t: "), let m = line.range(of: "M:") {
                let time = Double(line[t.upperBound...].prefix { $0 != " " }) ?? -1
                // ffmpeg's meter says "nan" (or a very low number) for digital silence.
                let level = Double(line[m.upperBound...].drop { $0 == " " }.prefix { $0 != " " }).flatMap { $0.isNaN ? nil : $0 } ?? -120
                if time >= 0 { momentary.append((time, level)) }
            } else if line.contains("I:"), line.contains("LUFS") {
                integrated = line.split(separator: " ").compactMap { Double($0) }.first
            } else if let range = line.range(of: " time=") {
                // The final statistics line: how much audio went through, to the hundredth.
                let parts = line[range.upperBound...].prefix { $0 != " " }.split(separator: ":").compactMap { Double($0) }
                if parts.count == 3 { length = parts[0] * 3600 + parts[1] * 60 + parts[2] }
            } else if line.contains("Sample peak:") {
                inPeak = true
            } else if inPeak, line.contains("Peak:"), line.contains("dBFS") {
                peak = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
                inPeak = false
            }
        }
        guard let integrated, integrated.isFinite, integrated > -70 else { throw AudioRenderError.tooQuietToMeasure }
        return Analysis(integrated: integrated, peak: peak, duration: max(length ?? 0, momentary.last?.0 ?? 0), momentary: momentary)
    }

    /// The parts to keep: everything but the middles of long quiet stretches.
    static func keptParts(momentary: [(Double, Double)], integrated: Double, duration: Double) -> TimeMap {
        let threshold = min(integrated - silenceBelowShow, loudestSilence)
        // A quiet window ending at t says [t − 0.4, t] is quiet; runs of them join.
        var quiet: [(Double, Double)] = []
        for (time, level) in momentary where level < threshold {
            let start = max(0, time - 0.4)
            if let last = quiet.last, start <= last.1 + 1e-6 { quiet[quiet.count - 1].1 = time } else { quiet.append((start, time)) }
        }
        func snapped(_ value: Double) -> Double { (value / grid).rounded() * grid }
        var kept: [[Double]] = []
        var from = 0.0
        for (start, end) in quiet where end - start >= shortestCut {
            let cutStart = snapped(start + keep), cutEnd = snapped(end - keep)
            guard cutEnd > cutStart else { continue }
            if cutStart > from { kept.append([from, cutStart]) }
            from = cutEnd
        }
        guard !kept.isEmpty || from > 0 else { return .identity }
        // The last part runs to the end (the encoder keeps whatever follows the meter's last window).
        kept.append([from, max(from, duration)])
        return TimeMap(kept: kept)
    }
}
