import AudioRender
import Foundation
import Speech
import Testing

/// Podcast episodes levelled to −16 LUFS with long silences shortened, on real speech (eSpeak NG)
/// mixed the way a quiet show is: far under −16, with a faint room under it.
@Suite("Spoken levelling: one loudness, and silences trimmed without ever cutting a quiet show's speech")
struct SpokenLevellingTests {
    static let sentences = ["Good evening, and welcome back.", "Tonight we listen to the owls.", "They call softly, far away.",
                            "Listen closely now.", "That is all for tonight; sleep well."]
    /// After each sentence: short breaths, and three long silences to trim.
    static let pauses = [0.4, 4.0, 0.3, 6.0, 3.0]

    /// The show: speech 32 dB down (about −45 LUFS: a quietly mixed show), with room noise at
    /// about −80 dBFS throughout, at 22.05 kHz as eSpeak speaks.
    static func quietShow() async throws -> (show: AudioBuffer, speech: [(start: Double, end: Double)]) {
        var show = AudioBuffer(sampleRate: 22_050)
        var speech: [(Double, Double)] = []
        for (sentence, pause) in zip(sentences, pauses) {
            let spoken = try await ESpeakEngine().synthesize(sentence, voice: nil, rate: 1).audio
            if show.samples.isEmpty { show = AudioBuffer(sampleRate: spoken.sampleRate) }
            let start = show.duration
            show.append(AudioBuffer(sampleRate: spoken.sampleRate, samples: spoken.samples.map { $0 * amplitude(decibels: -32) }))
            speech.append((start, show.duration))
            show.append(.silence(seconds: pause, sampleRate: spoken.sampleRate))
        }
        var generator = SeededGenerator(seed: 7)
        let floor = amplitude(decibels: -80)
        show.samples = show.samples.map { $0 + Float.random(in: -floor...floor, using: &generator) }
        return (show, speech)
    }

    /// A scratch folder holding the show as a WAV, and the MP3 name the levelled show is written to.
    static func files(_ show: AudioBuffer) throws -> (work: URL, source: URL, output: URL) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("levelling-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let source = work.appendingPathComponent("show.wav"), output = work.appendingPathComponent("show.mp3")
        try WAVFile.encode(show).write(to: source)
        return (work, source, output)
    }

    @Test("the quiet show comes back at −16 LUFS, every word kept, the three long silences cut to about a second, and the map matches the file")
    func quietShowKeepsEveryWord() async throws {
        let (show, speech) = try await Self.quietShow()
        let (work, source, output) = try Self.files(show)
        defer { try? FileManager.default.removeItem(at: work) }

        let result = try await SpokenLevelling().process(source, trimSilence: true, into: output)
        // It really is quiet: an absolute −50 dB silence gate would cut into this speech.
        #expect(result.measured < -40)
        let files = AudioFiles()
        let levelled = try await files.loudness(of: output)
        #expect(abs(levelled - -16) < 1, "levelled to \(levelled) LUFS")

        // Every moment of speech (10 ms windows louder than the room by 20 dB) is in a kept part.
        let rate = show.sampleRate, window = rate / 100
        var cut: [Double] = []
        for start in stride(from: 0, to: show.samples.count - window, by: window) where decibels(show.rms(start..<(start + window))) > -80 + 20 {
            let time = Double(start) / Double(rate)
            if !result.map.kept.contains(where: { $0[0] <= time && time + 0.01 <= $0[1] + 0.0001 }) { cut.append(time) }
        }
        #expect(cut.isEmpty, "speech cut at \(cut.prefix(5))")
        #expect(!speech.isEmpty)

        // The long silences (4, 6 and 3 s) lose all but a second each; the breaths stay.
        let removed = result.map.removed(from: result.duration)
        #expect(abs(removed - (3.0 + 5.0 + 2.0)) < 0.9, "removed \(removed) s")
        // The file is as long as the map says, and times map both ways.
        let probed = try await files.probe(output).duration
        let mapped = result.map.processed(result.duration)
        #expect(abs(probed - mapped) < 0.1, "file \(probed) s, map \(mapped) s")
        for (start, _) in speech {
            #expect(abs(result.map.original(result.map.processed(start)) - start) < 0.001)
        }
    }

    @Test("without trimming, nothing is cut and the level still comes to −16 LUFS")
    func levelOnly() async throws {
        let (show, _) = try await Self.quietShow()
        let (work, source, output) = try Self.files(show)
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try await SpokenLevelling().process(source, trimSilence: false, into: output)
        #expect(result.map == .identity)
        #expect(abs(try await AudioFiles().probe(output).duration - show.duration) < 0.08)
        #expect(abs(try await AudioFiles().loudness(of: output) - -16) < 1)
    }

    @Test("forty silences cut in one file: the file is exactly as long as the map says")
    func manyCuts() async throws {
        var show = AudioBuffer(sampleRate: 44_100)
        for index in 0..<40 {
            let tone = (0..<44_100).map { Float(sin(Double($0) * 2 * .pi * Double(200 + index * 5) / 44_100) * 0.1) }
            show.append(AudioBuffer(sampleRate: 44_100, samples: tone))
            show.append(.silence(seconds: 3 + Double(index % 3) * 0.37, sampleRate: 44_100))
        }
        let (work, source, output) = try Self.files(show)
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try await SpokenLevelling().process(source, trimSilence: true, into: output)
        #expect(result.map.kept.count == 41, "\(result.map.kept.count) parts: \(result.map.kept.prefix(6)) measured \(result.measured) duration \(result.duration)")
        let probed = try await AudioFiles().probe(output).duration
        #expect(abs(probed - result.map.processed(result.duration)) < 0.1, "file \(probed) s, map \(result.map.processed(result.duration)) s")
    }

    @Test("the time map: a time inside a cut plays where the cut is; after the last part, the end")
    func timeMap() {
        let map = TimeMap(kept: [[0, 10], [14, 20], [25, 30]])
        #expect(map.processed(5) == 5)
        #expect(map.processed(12) == 10)
        #expect(map.processed(15) == 11)
        #expect(map.processed(26) == 17)
        #expect(map.processed(31) == 21)
        #expect(map.original(10.5) == 14.5)
        #expect(map.original(17) == 26)
        #expect(map.removed(from: 30) == 9)
        #expect(TimeMap.identity.processed(7) == 7 && TimeMap.identity.original(7) == 7)
    }
}
