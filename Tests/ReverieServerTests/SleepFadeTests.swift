import AudioRender
import Foundation
import Playback
@testable import ReverieServer
import SharedCases
import Testing

/// The sleep timer's one fade (`SleepTimer.fade`) where the server makes it: the live Wind Down
/// file's samples answer the gains of `Tests/Shared/sleep-timer-cases.json`, and a rendition's
/// file is the fade's, so a changed fade is never answered from an older file.
@Suite("Sleep timer fade on the server: the live file's samples and the renditions' files")
struct SleepFadeTests {
    struct Shared: Decodable {
        var fade: SleepFadeCases
    }

    static let shared = try! SharedCases.load("sleep-timer-cases.json", as: Shared.self)

    @Test("the live file's rendition scales each sample by the shared fade's gain with that many seconds left, in either sample format",
          arguments: shared.fade.gains, [WAVFile.Sample.pcm16, .float32])
    func liveSamples(_ row: SleepFadeCases.Gain, format: WAVFile.Sample) throws {
        #expect(Self.shared.fade.seconds == SleepTimer.fade.seconds)
        // 100 samples a second: the fade's 30 s are 3,000 samples ending at sample 10,000, and
        // samples past the end (a row with less than nothing left) are silence too.
        let rate = 100, end = 10_000, value: Float = 16_000.0 / 32_768
        let fadeStart = end - AudioBuffer.sampleCount(SleepTimer.fade.seconds, rate)
        var bytes = format.encode([Float](repeating: value, count: end + 1_000))
        LiveSleepAudio.fade(&bytes, sample: format, firstSample: 0, fadeStart: fadeStart, end: end)
        let samples = try WAVFile.decode(Data(WAVFile.header(sampleRate: rate, samples: end + 1_000, sample: format) + bytes)).samples
        let sample = end - Int((row.left * Double(rate)).rounded())
        #expect(abs(Double(samples[sample]) - Double(value) * row.gain) <= 1.0 / 32_768, "sample \(sample): \(samples[sample])")
    }

    @Test("a rendition's file names the fade, and a changed fade makes a new file that fades by it instead of answering the old one")
    func renditionPerFade() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fade-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Five seconds of a 440 Hz tone at half scale.
        let source = folder.appendingPathComponent("tone.wav")
        let tone = (0..<(5 * 22050)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 22050)) }
        try WAVFile.encode(AudioBuffer(sampleRate: 22050, samples: tone)).write(to: source)
        let directory = folder.appendingPathComponent("renditions", isDirectory: true)

        let usual = try #require(try await Renditions(directory: directory).rendition(of: source, key: "tone", duration: 5, shape: .init(until: 4)))
        #expect(usual.url.lastPathComponent == "tone-40-\(SleepTimer.fade.cacheTag).m4a")
        let shorter = SleepFade(seconds: 2, shape: .linear)
        let changed = try #require(try await Renditions(directory: directory, fade: shorter).rendition(of: source, key: "tone", duration: 5, shape: .init(until: 4)))
        #expect(changed.url.lastPathComponent == "tone-40-fade2-linear.m4a")

        // What each file holds 3 s in, with 1 s left, against the tone: the usual fade runs over
        // all of a file this short (a quarter is left), the shorter one over its last 2 s (a half).
        func level(_ file: URL, at second: Double) async throws -> Double {
            let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-ar", "22050", "-f", "wav", "-"], nil)
            let heard = try WAVFile.decode(wav.output).samples
            let first = AudioBuffer.sampleCount(second - 0.05, 22050), last = AudioBuffer.sampleCount(second + 0.05, 22050)
            let power = heard[first..<last].map { Double($0) * Double($0) }.reduce(0, +) / Double(last - first)
            return power.squareRoot() / (0.5 / 2.0.squareRoot())
        }
        #expect(abs(try await level(usual.url, at: 3) - 0.25) < 0.05)
        #expect(abs(try await level(changed.url, at: 3) - shorter.gain(left: 1)) < 0.05)
        #expect(abs(try await level(changed.url, at: 1) - 1) < 0.05)
    }
}
