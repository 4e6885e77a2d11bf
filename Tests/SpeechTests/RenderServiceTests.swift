import AudioRender
import Foundation
@testable import Speech
import Testing

/// Counts what it is asked to speak; speaks through the tone engine, slowly enough that
/// concurrent requests overlap.
actor CountingEngine: SpeechEngine {
    nonisolated let name = "counting"
    nonisolated let version = "1"
    private(set) var calls = 0
    func voices() async throws -> [Voice] { [Voice(id: "tone", name: "Tone", language: "en", engine: name)] }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        calls += 1
        try await Task.sleep(for: .milliseconds(50))
        return try await ToneEngine().synthesize(text, voice: voice, rate: rate)
    }
}

@Suite("Render cache")
struct RenderServiceTests {
    func scratch() -> URL { FileManager.default.temporaryDirectory.appendingPathComponent("renders-\(UUID().uuidString)") }

    @Test("a second identical render is served from the cache without speaking again")
    func cacheHit() async throws {
        let engine = CountingEngine()
        let directory = scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = RenderService(engines: SpeechEngines([engine]), directory: directory)
        let request = RenderService.Request(script: "One line. (1s) Another line.", format: .mp3)
        let first = try await service.render(request)
        #expect(await engine.calls == 2)
        #expect(first.durationMs > 1000)
        #expect(FileManager.default.fileExists(atPath: first.audio.path))
        let vtt = try String(contentsOf: first.captions, encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT") && vtt.contains("Another line."))

        // A new service over the same folder (a restarted server) finds it too.
        let again = try await RenderService(engines: SpeechEngines([engine]), directory: directory).render(request)
        #expect(first.profile != nil && again.profile == nil)   // made, then found
        var found = first
        found.profile = nil
        #expect(again == found)
        // The opening (to the end of the first phrase, or further when the second was ready as
        // soon) is kept with it.
        let opening = try #require(await service.opening(of: first.key))
        guard case let .file(url) = opening else { Issue.record("\(opening)"); return }
        let wav = try WAVFile.decode(Data(contentsOf: url))
        #expect(wav.duration > 0.5 && wav.duration <= Double(first.durationMs) / 1000 + 0.001, "\(wav.duration)")
        #expect(await engine.calls == 2)

        // Anything that would sound different renders again.
        var slower = request
        slower.rate = 0.9
        #expect(try await service.key(for: slower) != first.key)
        var other = request
        other.script += " And a third."
        #expect(try await service.key(for: other) != first.key)
    }

    @Test("concurrent identical requests share one job")
    func sharedJob() async throws {
        let engine = CountingEngine()
        let directory = scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = RenderService(engines: SpeechEngines([engine]), directory: directory)
        let request = RenderService.Request(script: "Breathe in. (0.5s) Breathe out.", format: .opus)
        let tasks = (0..<4).map { _ in Task { try await service.render(request) } }
        var entries: [RenderService.Entry] = []
        for task in tasks { entries.append(try await task.value) }
        #expect(Set(entries.map(\.key)).count == 1)
        #expect(await engine.calls == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == [entries[0].key], "no scratch folders left: \(leftovers)")
    }

    @Test("no engine, or a voice nobody has, is a clear error")
    func missingEngine() async throws {
        let none = RenderService(engines: SpeechEngines([]), directory: scratch())
        await #expect(throws: SpeechError.self) { _ = try await none.render(.init(script: "Hello.")) }
        let one = RenderService(engines: SpeechEngines([CountingEngine()]), directory: scratch())
        await #expect(throws: SpeechError.unknownVoice("nobody")) { _ = try await one.render(.init(script: "Hello.", voice: "nobody")) }
    }
}
