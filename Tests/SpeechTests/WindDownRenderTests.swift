import AudioRender
import Foundation
import SleepLibrary
import Speech
import SpokenScript
import Testing

/// Issue 36: catalog items spoken for real by Piper over the sleep bed, as the server makes them,
/// measured in the encoded file. One of each kind the issue names: a breathing exercise, the
/// shortest story and the shortest hypnosis session (with the real engines, one at a time).
@Suite("Wind Down items spoken by Piper", .serialized)
struct WindDownRenderTests {
    static let library = try! SleepLibrary.bundled()

    /// Each item's render and its encoded file, made once and shared by the tests.
    static let renders: [String: Task<(RenderedSpeech, URL), any Error>] = Dictionary(uniqueKeysWithValues:
        ["breathing_478", "story_candle_room", "hypnosis_dreams"].map { id in
            (id, Task {
                let item = try #require(library.item(id))
                let script = try #require(SleepLibrary.script(named: item.audio ?? id))
                let rendered = try await SleepNarration(engine: sharedPiperPool).render(script, seconds: Double(item.duration))
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("winddown-\(id)-\(UUID().uuidString).m4a")
                try await AudioEncoder().encode(rendered.audio, as: .m4a, to: file)
                return (rendered, file)
            })
        })

    @Test("the file lasts the catalog's length within 2%, and is at −16 LUFS within 1 LU", arguments: ["breathing_478", "story_candle_room", "hypnosis_dreams"])
    func lengthAndLoudness(id: String) async throws {
        let (_, file) = try await Self.renders[id]!.value
        let item = try #require(Self.library.item(id))
        let seconds = try await AudioFiles().probe(file).duration
        #expect(abs(seconds - Double(item.duration)) / Double(item.duration) <= 0.02, "\(id): \(seconds) s for \(item.duration) s")
        let loudness = try await AudioFiles().loudness(of: file)
        #expect(abs(loudness - (-16)) <= 1, "\(id): \(loudness) LUFS")
    }

    @Test("no clicks in the file: in every pause only the bed moves, gently, and each phrase is spliced in and out at silence",
          arguments: ["breathing_478", "story_candle_room", "hypnosis_dreams"])
    func noClicks(id: String) async throws {
        let (rendered, file) = try await Self.renders[id]!.value
        let heard = try decoded(file)
        let rate = heard.sampleRate
        func jump(_ range: Range<Int>) -> Float {
            let range = max(1, range.lowerBound)..<min(heard.samples.count, range.upperBound)
            return range.map { abs(heard.samples[$0] - heard.samples[$0 - 1]) }.max() ?? 0
        }
        let margin = AudioBuffer.sampleCount(0.005, rate)
        var pauses: Float = 0, splices: Float = 0
        for pause in rendered.timeline.pauses where pause.endMs - pause.startMs > 50 {
            let from = AudioBuffer.sampleCount(Double(pause.startMs) / 1000, rate) + margin
            let to = AudioBuffer.sampleCount(Double(pause.endMs) / 1000, rate) - margin
            pauses = max(pauses, jump(from..<to))
        }
        // A phrase's audio begins half a fade before its voice and ends half a fade after it:
        // there the voice is at nothing, so only the bed should move.
        let half = 0.004, edge = AudioBuffer.sampleCount(0.002, rate)
        for phrase in rendered.timeline.phrases {
            for splice in [Double(phrase.startMs) / 1000 - half, Double(phrase.endMs) / 1000 + half] {
                let center = AudioBuffer.sampleCount(splice, rate)
                splices = max(splices, jump((center - edge)..<(center + edge)))
            }
        }
        #expect(pauses < 0.01, "\(id): a jump of \(pauses) in a pause")
        #expect(splices < 0.02, "\(id): a jump of \(splices) where a phrase is spliced in or out")
    }

    @Test("the breathing exercise counts on the beat: every phrase after a beat starts within 50 ms of it, measured from the render's timeline")
    func beats() async throws {
        let (rendered, _) = try await Self.renders["breathing_478"]!.value
        let item = try #require(Self.library.item("breathing_478"))
        let parsed = try ScriptParser().parse(try #require(SleepLibrary.script(named: item.audio ?? item.id)))
        var phrase = -1, checked = 0, worst = 0.0
        for segment in parsed.segments {
            switch segment {
            case .phrase: phrase += 1
            case let .pause(pause) where pause.beat && phrase + 1 < rendered.timeline.phrases.count:
                let start = Double(rendered.timeline.phrases[phrase].startMs) / 1000
                let next = Double(rendered.timeline.phrases[phrase + 1].startMs) / 1000
                worst = max(worst, abs(next - start - pause.seconds))
                checked += 1
            default: break
            }
        }
        #expect(checked > 50)
        #expect(worst <= 0.05, "a beat off by \(worst) s")
    }

    /// The file's audio as the player hears it, decoded by ffmpeg.
    func decoded(_ file: URL) throws -> AudioBuffer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", file.path, "-ac", "1", "-ar", "22050", "-f", "wav", "pipe:1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try WAVFile.decode(data)
    }
}
