import AudioRender
import Foundation
@testable import Speech
import SharedCases
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

    @Test("a waiter that lets go hears so at once; the render goes on for the others, and stops when the last lets go, leaving nothing",
          .timeLimit(.minutes(1)))
    func lettingGo() async throws {
        let engine = CountingEngine()
        let directory = scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let service = RenderService(engines: SpeechEngines([engine]), directory: directory)
        let script = (1...10).map { "Line \($0) of the story." }.joined(separator: "\n")
        let request = RenderService.Request(script: script, format: .opus)
        let key = try await service.key(for: request)
        func waiting(_ count: Int) async throws {
            _ = try await eventually("\(count) waiting on the render", limit: .seconds(50), every: .milliseconds(5)) {
                await service.waiters(of: key) == count ? true : nil
            }
        }

        let leaving = Task { try await service.render(request) }
        let staying = Task { try await service.render(request) }
        try await waiting(2)
        leaving.cancel()
        await #expect(throws: CancellationError.self) { _ = try await leaving.value }
        let entry = try await staying.value
        #expect(await engine.calls == 10, "spoken once, without starting again")
        let timeline = try JSONDecoder().decode(RenderTimeline.self, from: Data(contentsOf: entry.timeline))
        #expect(timeline.phrases.count == 10)

        // Nobody waits for the next: it stops before its next phrase and leaves no files.
        var longer = request
        longer.script += "\nAnd the end."
        let longerKey = try await service.key(for: longer)
        let alone = Task { try await service.render(longer) }
        _ = try await eventually("the longer render's first phrase asked for", limit: .seconds(50), every: .milliseconds(5)) {
            await engine.calls >= 11 ? true : nil
        }
        alone.cancel()
        await #expect(throws: CancellationError.self) { _ = try await alone.value }
        #expect(await service.progress(of: longerKey) == nil)
        _ = try await eventually("the let-go render's files removed", limit: .seconds(50), every: .milliseconds(5)) {
            try FileManager.default.contentsOfDirectory(atPath: directory.path) == [key] ? true : nil
        }
        let asked = await engine.calls
        #expect(asked <= 12, "\(asked - 10) phrases asked of a render of 11 let go of after its first")
        // Asked again, it is spoken afresh and whole.
        let again = try await service.render(longer)
        #expect(again.key == longerKey && again.profile != nil)
        #expect(try JSONDecoder().decode(RenderTimeline.self, from: Data(contentsOf: again.timeline)).phrases.count == 11)
    }

    @Test("no engine, or a voice nobody has, is a clear error")
    func missingEngine() async throws {
        let none = RenderService(engines: SpeechEngines([]), directory: scratch())
        await #expect(throws: SpeechError.self) { _ = try await none.render(.init(script: "Hello.")) }
        let one = RenderService(engines: SpeechEngines([CountingEngine()]), directory: scratch())
        await #expect(throws: SpeechError.unknownVoice("nobody")) { _ = try await one.render(.init(script: "Hello.", voice: "nobody")) }
    }
}
