import AudioRender
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
@testable import ReverieServer
import Speech
import Testing
import Vapor
import SharedCases

/// A test engine that speaks a tone per phrase, but only once the test opens its gate, so the
/// test can look at renders while they run. Records what it is asked to speak; a phrase waiting
/// at the gate gives up when its task is cancelled.
final class GatedEngine: SpeechEngine {
    let name = "gated"
    let version = "1"
    private struct State {
        var open = false
        var asked: [String] = []
        var speaking = 0
        /// Phrases waiting at the gate, let through when it opens.
        var waiting: [UUID: CheckedContinuation<Void, any Error>] = [:]
    }
    private let state = NIOLockedValueBox(State())
    /// Phrases spoken at once, without waiting for the gate; with `openings`, each render's first too.
    private let passing: Set<String>
    private let openings: Bool

    init(open: Bool = false, passing: Set<String> = [], openings: Bool = false) {
        (self.passing, self.openings) = (passing, openings)
        state.withLockedValue { $0.open = open }
    }

    var calls: Int { state.withLockedValue { $0.asked.count } }
    /// The phrases asked for, in order.
    var asked: [String] { state.withLockedValue { $0.asked } }
    /// Phrases being spoken or waiting at the gate now.
    var speaking: Int { state.withLockedValue { $0.speaking } }
    func open() {
        let waiting = state.withLockedValue { state in
            state.open = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        waiting.forEach { $0.resume() }
    }

    func voices() async throws -> [Voice] { [Voice(id: "tone", name: "Tone", language: "en", engine: name)] }

    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        state.withLockedValue {
            $0.asked.append(text)
            $0.speaking += 1
        }
        defer { state.withLockedValue { $0.speaking -= 1 } }
        if !passing.contains(text), !(openings && SpeechRequests.opening) {
            // Waits for the gate (no polling); a cancelled render's phrase stops waiting.
            let id = UUID()
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (phrase: CheckedContinuation<Void, any Error>) in
                    let through = state.withLockedValue { state in
                        if state.open || Task.isCancelled { return true }
                        state.waiting[id] = phrase
                        return false
                    }
                    if through { phrase.resume() }
                }
            } onCancel: {
                state.withLockedValue { $0.waiting.removeValue(forKey: id) }?.resume(throwing: CancellationError())
            }
            try Task.checkCancellation()
        }
        let sampleRate = 22050
        let seconds = 0.2 * Double(max(1, text.split(separator: " ").count))
        let samples = (0..<AudioBuffer.sampleCount(seconds, sampleRate)).map { Float(0.3 * sin(2 * Double.pi * 330 * Double($0) / Double(sampleRate))) }
        return SynthesizedSpeech(audio: AudioBuffer(sampleRate: sampleRate, samples: samples),
                                 words: [WordTiming(text: text, start: 0, end: seconds)])
    }
}

extension TestClient {
    /// Starts a render and returns the reply.
    func startRender(_ text: String, voice: String? = nil, rate: Double? = nil, format: String? = nil, as user: String) async throws -> Reply {
        try await send(.POST, "/api/speech/renders", json: SpeechRenderRequest(text: text, voice: voice, rate: rate, format: format), auth: .cookie(user))
    }

    /// Follows a render until it is no longer running, however long a busy machine takes.
    func waitForRender(_ id: UUID, as user: String) async throws -> SpeechRenderInfo {
        try await eventually("render \(id) finishing", every: .milliseconds(10)) {
            let info = try await send(.GET, "/api/speech/renders/\(id)", auth: .cookie(user)).decode(SpeechRenderInfo.self)
            return info.status == .rendering ? nil : info
        }
    }
}

@Suite("Speech API")
struct SpeechAPITests {
    @Test("a render runs in the background, then serves audio, captions and timeline; the same script again is a cache hit",
          arguments: TestDatabase.all)
    func lifecycle(database: TestDatabase) async throws {
        let engine = GatedEngine()
        try await withTestApp(database, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let started = try await client.startRender("Breathe in. (1s) Breathe out.", format: "mp3", as: ada)
            #expect(started.status == .accepted, "\(started.text)")
            let render = try started.decode(SpeechRenderInfo.self)
            // Its id in lower case, as every other id the API sends.
            let id = render.id.uuidString.lowercased()
            #expect(started.text.contains("\"id\":\"\(id)\""))
            #expect(started.headers.first(name: .location) == "/api/speech/renders/\(id)")
            #expect(render.status == .rendering && render.audioURL == nil && render.engine == "gated" && render.characters == 29)

            // While it runs, the files are not ready.
            let early = try await client.send(.GET, "/api/speech/renders/\(render.id)/audio", auth: .cookie(ada))
            #expect(early.status == .conflict && early.error?.code == "not_ready")

            engine.open()
            let done = try await client.waitForRender(render.id, as: ada)
            #expect(done.status == .done && done.progress == 1)
            #expect(try #require(done.durationMs) > 1400)
            #expect(engine.calls == 2)

            let audio = try await client.send(.GET, try #require(done.audioURL), auth: .cookie(ada))
            #expect(audio.status == .ok && audio.headers.first(name: .contentType) == "audio/mpeg")
            #expect(audio.headers.first(name: .acceptRanges) == "bytes")
            let captions = try await client.send(.GET, try #require(done.captionsURL), auth: .cookie(ada))
            #expect(captions.headers.first(name: .contentType)?.hasPrefix("text/vtt") == true)
            #expect(captions.text.hasPrefix("WEBVTT") && captions.text.contains("Breathe out."))
            let timeline = try await client.send(.GET, try #require(done.timelineURL), auth: .cookie(ada))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(timeline.text.utf8)) as? [String: Any])
            #expect((json["phrases"] as? [Any])?.count == 2)

            // The same request again: finished at once from the cache, nothing spoken.
            let again = try await client.startRender("Breathe in. (1s) Breathe out.", format: "mp3", as: ada)
            #expect(again.status == .created)
            let hit = try again.decode(SpeechRenderInfo.self)
            #expect(hit.status == .done && hit.id != render.id && hit.durationMs == done.durationMs)
            #expect(engine.calls == 2)
        }
    }

    @Test("the first phrase can be played while the rest is spoken, and stays with the finished render", arguments: TestDatabase.all)
    func firstPhrase(database: TestDatabase) async throws {
        let engine = GatedEngine(passing: ["Come in and sit down."])
        try await withTestApp(database, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let render = try await client.startRender("(0.5s) Come in and sit down. (1s) Now rest a while here.", format: "m4a", as: ada)
                .decode(SpeechRenderInfo.self)
            // Asked at once, it waits for the first phrase: the leading pause and the phrase, as WAV.
            let first = try await client.send(.GET, "/api/speech/renders/\(render.id.uuidString.lowercased())/first", auth: .cookie(ada))
            #expect(first.status == .ok && first.headers.first(name: .contentType) == "audio/wav", "\(first.text)")
            let opening = try WAVFile.decode(first.bytes)
            #expect(opening.duration > 0.5 + 0.8 && opening.duration < 0.5 + 1.2, "\(opening.duration)")
            #expect(opening.samples.prefix(AudioBuffer.sampleCount(0.45, opening.sampleRate)).allSatisfy { $0 == 0 })
            let running = try await client.send(.GET, "/api/speech/renders/\(render.id)", auth: .cookie(ada)).decode(SpeechRenderInfo.self)
            #expect(running.status == .rendering && running.audioURL == nil)
            #expect(running.firstPhraseURL == "/api/speech/renders/\(render.id.uuidString.lowercased())/first")
            // Another person's render is not theirs to hear.
            #expect(try await client.send(.GET, "/api/speech/renders/\(render.id.uuidString.lowercased())/first", auth: .cookie(grace)).status == .notFound)

            engine.open()
            let done = try await client.waitForRender(render.id, as: ada)
            #expect(done.status == .done && done.firstPhraseURL != nil)
            let kept = try await client.send(.GET, try #require(done.firstPhraseURL), auth: .cookie(ada))
            #expect(kept.status == .ok && kept.bytes == first.bytes)
        }
    }

    @Test("the whole render is sent as MP3 while it is spoken, from its first byte to its end; once done the same MP3 is kept, with byte ranges (issue 46)",
          .timeLimit(.minutes(10)), arguments: TestDatabase.all)
    func live(database: TestDatabase) async throws {
        let engine = GatedEngine(passing: ["Come in and sit down.", "Breathe."])
        try await withTestApp(database, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let render = try await client.startRender("(0.5s) Come in and sit down. (1s) Now rest a while here.", format: "m4a", as: ada)
                .decode(SpeechRenderInfo.self)
            let id = render.id.uuidString.lowercased()
            #expect(render.liveURL == "/api/speech/renders/\(id)/live")
            let liveURL = try #require(render.liveURL)
            // Asked at once, while the second phrase waits at the gate: the stream is not over
            // while the render is not (it waits for the rest rather than ending after the opening).
            let ended = NIOLockedValueBox(false)
            let heard = Task {
                defer { ended.withLockedValue { $0 = true } }
                return try await client.send(.GET, liveURL, auth: .cookie(ada))
            }
            _ = try await client.send(.GET, "/api/speech/renders/\(id)/first", auth: .cookie(ada))   // the opening is spoken
            try await eventually("the second phrase at the gate") { engine.asked.count >= 2 ? true : nil }
            // What is spoken so far is in the live file already (the opening's 1.5 s is about 24 KB
            // at 128 kb/s), not held back until more comes.
            let cache = client.app.speech.service.directory
            try await eventually("the opening in the live file") { () -> Bool? in
                let names = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix(".live-") }
                let sizes = names.compactMap { try? FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent($0).path)[.size] as? Int }
                return sizes.contains { $0 > 12_000 } ? true : nil
            }
            #expect(!ended.withLockedValue { $0 }, "the live stream ended with only the opening spoken")
            #expect(try await client.send(.GET, liveURL, auth: .cookie(grace)).status == .notFound, "another person's render")

            // One let go of while it is heard (or still awaited): its stream ends, even though the
            // same words are spoken again at once by a new run (whose own stream that is), and
            // asking for it again says why.
            let stopped = try await client.startRender("Breathe. (1s) And the rest is never said.", as: ada).decode(SpeechRenderInfo.self)
            let cut = Task { try? await client.send(.GET, try #require(stopped.liveURL), auth: .cookie(ada)) }
            try await eventually("the first phrase spoken") { engine.asked.contains("Breathe.") ? true : nil }
            _ = try await client.send(.DELETE, "/api/speech/renders/\(stopped.id)", auth: .cookie(ada))
            let again = try await client.startRender("Breathe. (1s) And the rest is never said.", as: ada).decode(SpeechRenderInfo.self)
            #expect(again.status == .rendering)
            if let cutShort = await cut.value {
                #expect(cutShort.status != .ok || cutShort.bytes.count < 64 * 1024, "\(cutShort.status)")
            }
            let gone = try await client.send(.GET, try #require(stopped.liveURL), auth: .cookie(ada))
            #expect(gone.status == .conflict && gone.error?.code == "render_failed", "\(gone.text)")

            engine.open()
            let done = try await client.waitForRender(render.id, as: ada)
            #expect(done.liveURL == nil)
            let reply = try await heard.value
            #expect(reply.status == .ok && reply.headers.first(name: .contentType) == "audio/mpeg", "\(reply.text.prefix(200))")
            #expect(reply.headers.first(name: .acceptRanges) == nil)
            // All of it: the leading pause, both phrases and the pause between, as the finished render.
            let audio = try await JoinedStreamTests.decoded(Data(reply.bytes))
            #expect(abs(audio.duration - Double(try #require(done.durationMs)) / 1000) < 0.15, "\(audio.duration) s")
            #expect(audio.samples.prefix(AudioBuffer.sampleCount(0.4, audio.sampleRate)).allSatisfy { abs($0) < 0.01 })
            let secondPhrase = Int((0.5 + 1.0 + 1.0 + 0.4) * Double(audio.sampleRate))
            #expect(audio.samples[secondPhrase..<(secondPhrase + 2000)].contains { abs($0) > 0.1 }, "the second phrase")

            // Asked once done: the same MP3, kept, now with its length and byte ranges, so a player
            // that was hearing it and reads on from a byte gets the bytes it was reading (the
            // finished M4A there would be other bytes, or none).
            let after = try await client.send(.GET, liveURL, auth: .cookie(ada))
            #expect(after.status == .ok && after.headers.first(name: .contentType) == "audio/mpeg", "\(after.status)")
            #expect(Data(after.bytes) == Data(reply.bytes))
            let middle = reply.bytes.count / 2
            let readOn = try await client.send(.GET, liveURL, auth: .cookie(ada), headers: ["Range": "bytes=\(middle)-"])
            #expect(readOn.status == .partialContent, "\(readOn.status)")
            #expect(Data(readOn.bytes) == Data(reply.bytes.dropFirst(middle)))
            #expect(try await client.send(.GET, liveURL, auth: .cookie(grace)).status == .notFound, "another person's render, done")
        }
    }

    @Test("audio answers byte ranges with 206, and an impossible range with 416")
    func ranges() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let render = try await client.startRender("A short line.", as: ada).decode(SpeechRenderInfo.self)
            let done = try await client.waitForRender(render.id, as: ada)
            let url = try #require(done.audioURL)
            let whole = try await client.send(.GET, url, auth: .cookie(ada))
            #expect(whole.headers.first(name: .contentType) == "audio/mp4")
            let size = try #require(Int(whole.headers.first(name: .contentLength) ?? ""))
            #expect(size > 1000)

            let part = try await client.send(.GET, url, auth: .cookie(ada), headers: ["Range": "bytes=0-99"])
            #expect(part.status == .partialContent)
            #expect(part.headers.first(name: .contentRange) == "bytes 0-99/\(size)")
            #expect(part.headers.first(name: .contentLength) == "100")

            let tail = try await client.send(.GET, url, auth: .cookie(ada), headers: ["Range": "bytes=-10"])
            #expect(tail.status == .partialContent && tail.headers.first(name: .contentLength) == "10")

            let beyond = try await client.send(.GET, url, auth: .cookie(ada), headers: ["Range": "bytes=\(size)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers.first(name: .contentRange) == "bytes */\(size)")
            #expect(beyond.error?.code == "range_not_satisfiable")
        }
    }

    @Test("a user may run two renders at once; a third answers 429 until one finishes")
    func concurrencyLimit() async throws {
        let engine = GatedEngine()
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let first = try await client.startRender("One.", as: ada).decode(SpeechRenderInfo.self)
            #expect(try await client.startRender("Two.", as: ada).status == .accepted)
            let third = try await client.startRender("Three.", as: ada)
            #expect(third.status == .tooManyRequests && third.error?.code == "too_many_renders")
            #expect(third.headers.first(name: "Retry-After") == "5")
            // The limit is per user: someone else can still render.
            #expect(try await client.startRender("Four.", as: grace).status == .accepted)

            engine.open()
            _ = try await client.waitForRender(first.id, as: ada)
            // Its place was given back before it said it was done: a new one is accepted at once.
            let again = try await client.startRender("Three.", as: ada)
            #expect(again.status == .accepted, "\(again.text)")
        }
    }

    @Test("bad requests say what to fix")
    func validation() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)]), speechMaxCharacters: 40) { client in
            let ada = try await client.setUpOwner()
            let cases: [(SpeechRenderRequest, String)] = [
                (.init(text: "   "), "invalid_script"),
                (.init(text: "(2s)"), "invalid_script"),
                (.init(text: String(repeating: "a", count: 41)), "script_too_long"),
                (.init(text: "Hello.", rate: 1.5), "invalid_rate"),
                (.init(text: "Hello.", format: "wav"), "invalid_format"),
                (.init(text: "Hello.", voice: "nobody"), "unknown_voice"),
            ]
            for (request, code) in cases {
                let reply = try await client.send(.POST, "/api/speech/renders", json: request, auth: .cookie(ada))
                #expect(reply.status == .badRequest, "\(request)")
                #expect(reply.error?.code == code, "\(reply.text)")
            }
            // A marker it cannot read is a warning with its place; the render still goes ahead.
            let warned = try await client.startRender("Hello. (2x) Again.", as: ada).decode(SpeechRenderInfo.self)
            #expect(warned.warnings.first.map { [$0.line, $0.column] } == [1, 8])
            #expect(try await client.send(.POST, "/api/speech/renders", json: SpeechRenderRequest(text: "Hi."))
                .status == .unauthorized)
        }
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let reply = try await client.startRender("Hello.", as: ada)
            #expect(reply.status == .serviceUnavailable && reply.error?.code == "speech_unavailable")
        }
    }

    @Test("another user's render answers 404, files included", arguments: TestDatabase.all)
    func isolation(database: TestDatabase) async throws {
        try await withTestApp(database, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let render = try await client.startRender("Mine alone.", as: ada).decode(SpeechRenderInfo.self)
            _ = try await client.waitForRender(render.id, as: ada)
            for suffix in ["", "/audio", "/first", "/live", "/captions.vtt", "/timeline"] {
                let reply = try await client.send(.GET, "/api/speech/renders/\(render.id)\(suffix)", auth: .cookie(grace))
                #expect(reply.status == .notFound && reply.error?.code == "not_found", "\(suffix)")
            }
            #expect(try await client.send(.GET, "/api/speech/renders/not-an-id", auth: .cookie(ada)).status == .notFound)
            // Nor is it theirs to let go of.
            let letGo = try await client.send(.DELETE, "/api/speech/renders/\(render.id)", auth: .cookie(grace))
            #expect(letGo.status == .notFound && letGo.error?.code == "not_found")
        }
    }

    @Test("real speech through the API: eSpeak NG to Opus")
    func realEngine() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([ESpeakEngine()])) { client in
            let ada = try await client.setUpOwner()
            let voices = try await client.send(.GET, "/api/speech/voices", auth: .cookie(ada)).decode([VoiceInfo].self)
            #expect(voices.contains { $0.id == "en-us" })
            let render = try await client.startRender("Hello there. (0.5s) Good night.", voice: "en-us", format: "opus", as: ada)
                .decode(SpeechRenderInfo.self)
            let done = try await client.waitForRender(render.id, as: ada)
            #expect(done.status == .done, "\(done.error ?? "")")
            let audio = try await client.send(.GET, try #require(done.audioURL), auth: .cookie(ada))
            #expect(audio.text.utf8.starts(with: "OggS".utf8))
            let timeline = try await client.send(.GET, try #require(done.timelineURL), auth: .cookie(ada))
            #expect(timeline.text.contains("\"Good\"") && timeline.text.contains("\"engine\":\"espeak-ng\""))
        }
    }
}

/// An engine whose worker dies on the first request and works afterwards, as Piper's does after
/// a crash (the next request starts a new worker).
final class CrashingOnceEngine: SpeechEngine {
    let name = "crashing"
    let version = "1"
    private let crashed = NIOLockedValueBox(false)
    func voices() async throws -> [Voice] { [Voice(id: "tone", name: "Tone", language: "en", engine: name)] }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        if !crashed.withLockedValue({ let was = $0; $0 = true; return was }) {
            throw SpeechError.workerDied("killed by the test")
        }
        return try await GatedEngine(open: true).synthesize(text, voice: voice, rate: rate)
    }
}

@Suite("Speech API when the engine fails")
struct SpeechFailureTests {
    @Test("a worker that dies mid-render fails that render with the reason; the server and the next render carry on")
    func workerDies() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([CrashingOnceEngine()])) { client in
            let ada = try await client.setUpOwner()
            let render = try await client.startRender("This one is unlucky.", as: ada).decode(SpeechRenderInfo.self)
            let failed = try await client.waitForRender(render.id, as: ada)
            #expect(failed.status == .failed)
            #expect(failed.error?.contains("killed by the test") == true)
            let audio = try await client.send(.GET, "/api/speech/renders/\(render.id)/audio", auth: .cookie(ada))
            #expect(audio.status == .conflict && audio.error?.code == "render_failed")

            // Nothing was cached for the failure: the same script renders afresh, and works.
            let retry = try await client.startRender("This one is unlucky.", as: ada)
            #expect(retry.status == .accepted)
            let done = try await client.waitForRender(try retry.decode(SpeechRenderInfo.self).id, as: ada)
            #expect(done.status == .done)
            #expect(try await client.send(.GET, "/api/health").status == .ok)
        }
    }

    @Test("the store answers a render as it was written, only to its owner, records how it ended, and fails the unfinished after a restart",
          arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let me = try await client.send(.GET, "/api/auth/me", auth: .cookie(ada)).decode(SessionInfo.self).user
            let user = AuthenticatedUser(id: me.id, username: me.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: me.createdAt)
            var stranger = user
            stranger.id = UUID()
            let renders = FluentSpeechRenderRepository(database: client.app.db)
            let written = SpeechRenderRecord(id: UUID(), status: .rendering, cacheKey: "first-key", engine: "gated", voice: "tone", rate: 0.9,
                                             format: "opus", characters: 12, durationMs: nil, warnings: #"[{"line":1,"column":3,"message":"odd"}]"#,
                                             error: nil, createdAt: nil, finishedAt: nil)
            let made = try await renders.create(written, ownerID: user.id)
            #expect(made.createdAt != nil)
            // The creation date as the database keeps it (PostgreSQL to the microsecond), the rest exactly as written.
            let found = try #require(try await renders.find(written.id, ownedBy: user))
            var expected = written
            expected.createdAt = found.createdAt
            #expect(found == expected)
            #expect(try await renders.find(written.id, ownedBy: stranger) == nil)

            let ended = Date(timeIntervalSince1970: 1_790_000_000)
            try await renders.finish(written.id, durationMs: 4200, error: nil, at: ended)
            (expected.status, expected.durationMs, expected.finishedAt) = (.done, 4200, ended)
            #expect(try await renders.find(written.id, ownedBy: user) == expected)

            // A render whose server stops saying it speaks it is taken by one other server, once.
            var running = written
            (running.id, running.cacheKey, running.script, running.worker, running.heartbeatAt) = (UUID(), "second-key", "Rest now.", "gone", ended)
            _ = try await renders.create(running, ownerID: user.id)
            #expect(try await renders.takeStalled(worker: "here", staleBefore: ended, at: ended.addingTimeInterval(1)).isEmpty)
            let later = ended.addingTimeInterval(61)
            let taken = try await renders.takeStalled(worker: "here", staleBefore: later, at: later)
            #expect(taken.map(\.id) == [running.id] && taken.first?.worker == "here" && taken.first?.script == "Rest now.")
            #expect(try await renders.takeStalled(worker: "there", staleBefore: later, at: later.addingTimeInterval(1)).isEmpty)
            try await renders.heartbeat(worker: "here", at: later.addingTimeInterval(15))
            #expect(try await renders.find(running.id, ownedBy: user)?.heartbeatAt == later.addingTimeInterval(15))
            try await renders.finish(running.id, durationMs: nil, error: "The server stopped.", at: later.addingTimeInterval(20))
            let failed = try #require(try await renders.find(running.id, ownedBy: user))
            #expect(failed.status == .failed && failed.error == "The server stopped." && failed.durationMs == nil && failed.script == nil,
                    "a finished render keeps no script")
            #expect(try await renders.find(written.id, ownedBy: user) == expected)

            #expect(try await renders.cacheKeys(ownedBy: user.id) == ["first-key", "second-key"])
            #expect(try await renders.cacheKeys(ownedBy: stranger.id).isEmpty)
            #expect(try await renders.isUsed(cacheKey: "second-key"))
            #expect(try await renders.isUsed(cacheKey: "third-key") == false)
        }
    }
}
