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
        var generator = SeededGenerator(seed: seed)
        let amplitude = AudioRender.amplitude(decibels: level) * 1.732 // uniform noise: RMS = amplitude
        let count = AudioBuffer.sampleCount(seconds, rate)
        return AudioBuffer(sampleRate: rate, samples: (0..<count).map { _ in amplitude * Float.random(in: -1...1, using: &generator) })
    }

    /// ffmpeg's own EBU R128 meter on a buffer: integrated loudness in LUFS.
    static func ffmpegLoudness(_ buffer: AudioBuffer) async throws -> Double {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loud-\(UUID().uuidString).wav")
        try WAVFile.encode(buffer).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await AudioFiles().loudness(of: file)
    }
}
