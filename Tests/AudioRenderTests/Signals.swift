import AudioRender
import Foundation

/// Test signals, made on the spot.
enum Signals {
    static func sine(_ frequency: Double, seconds: Double, decibels level: Double = -6, rate: Int = 22050) -> AudioBuffer {
        let amplitude = AudioRender.amplitude(decibels: level)
        let count = AudioBuffer.sampleCount(seconds, rate)
        return AudioBuffer(sampleRate: rate, samples: (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) })
    }

    /// White noise from a seeded generator (reproducible).
    static func noise(seconds: Double, decibels level: Double = -20, rate: Int = 22050, seed: UInt64 = 7) -> AudioBuffer {
        var generator = SplitMix(seed: seed)
        let amplitude = AudioRender.amplitude(decibels: level) * 1.732 // uniform noise: RMS = amplitude
        let count = AudioBuffer.sampleCount(seconds, rate)
        return AudioBuffer(sampleRate: rate, samples: (0..<count).map { _ in amplitude * Float.random(in: -1...1, using: &generator) })
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// ffmpeg's own EBU R128 meter on a buffer: integrated loudness in LUFS.
    static func ffmpegLoudness(_ buffer: AudioBuffer) async throws -> Double {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loud-\(UUID().uuidString).wav")
        try WAVFile.encode(buffer).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CommandRunner.live.run("ffmpeg", ["-hide_banner", "-nostats", "-i", file.path, "-af", "ebur128", "-f", "null", "-"], nil)
        let text = String(decoding: result.errors, as: UTF8.self)
        // The summary ends with "Integrated loudness: … I: -16.0 LUFS".
        guard let summary = text.range(of: "Integrated loudness:", options: .backwards),
              let match = text[summary.upperBound...].firstMatch(of: /I:\s+(-?[0-9.]+) LUFS/),
              let value = Double(match.1) else {
            throw NSError(domain: "ffmpeg", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: text])
        }
        return value
    }
}
