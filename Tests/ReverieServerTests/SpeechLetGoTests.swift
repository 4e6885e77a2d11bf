import Foundation
import ReverieAPI
@testable import ReverieServer
import Speech
import Testing
import Vapor
import SharedCases

extension TestClient {
    /// Lets go of a render (`DELETE /api/speech/renders/{id}`).
    func letGo(_ id: UUID, as user: String) async throws -> Reply {
        try await send(.DELETE, "/api/speech/renders/\(id)", auth: .cookie(user))
    }

    /// A render as it is now.
    func renderInfo(_ id: UUID, as user: String) async throws -> SpeechRenderInfo {
        try await send(.GET, "/api/speech/renders/\(id)", auth: .cookie(user)).decode(SpeechRenderInfo.self)
    }
}

/// Eight phrases, one a line: a render of it is still running while the gate is shut.
private let eightPhrases = (1...8).map { "Phrase number \($0) of the evening." }.joined(separator: "\n")

/// A person who moved on lets go of a render (issue 46): `DELETE /api/speech/renders/{id}`.
@Suite("Letting go of a render")
struct SpeechLetGoTests {
    @Test("letting go of a running render gives the person's place back at once, and it says it was stopped")
    func freesThePlace() async throws {
        let engine = GatedEngine()
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let first = try await client.startRender("One.", as: ada).decode(SpeechRenderInfo.self)
            #expect(try await client.startRender("Two.", as: ada).status == .accepted)
            #expect(try await client.startRender("Three.", as: ada).status == .tooManyRequests)

            // Not someone else's to let go of: 404, and it runs on.
            #expect(try await client.letGo(first.id, as: grace).status == .notFound)
            #expect(try await client.renderInfo(first.id, as: ada).status == .rendering)
            #expect(try await client.send(.DELETE, "/api/speech/renders/\(first.id)").status == .unauthorized)

            let letGo = try await client.letGo(first.id, as: ada)
            #expect(letGo.status == .noContent && letGo.text.isEmpty)
            // At once, not once the engine has stopped: a third render is accepted.
            let third = try await client.startRender("Three.", as: ada)
            #expect(third.status == .accepted, "\(third.text)")

            let stopped = try await client.renderInfo(first.id, as: ada)
            #expect(stopped.status == .failed && stopped.error == SpeechController.stoppedReason)
            #expect(stopped.audioURL == nil && stopped.firstPhraseURL == nil)
            let audio = try await client.send(.GET, "/api/speech/renders/\(first.id)/audio", auth: .cookie(ada))
            #expect(audio.status == .conflict && audio.error?.code == "render_failed")
            // Letting go again changes nothing.
            #expect(try await client.letGo(first.id, as: ada).status == .noContent)
            #expect(try await client.renderInfo(first.id, as: ada) == stopped)
            engine.open()   // the others end, so the app can shut down (it waits for running renders)
        }
    }

    @Test("the engine is asked for no more phrases of a render let go of, and the phrases it was speaking stop")
    func stopsSpeaking() async throws {
        let engine = GatedEngine()
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let render = try await client.startRender(eightPhrases, as: ada).decode(SpeechRenderInfo.self)
            // The renderer keeps two phrases asked of a one-at-a-time engine.
            _ = try await eventually("the first phrases asked for", every: .milliseconds(10)) { engine.calls == 2 ? true : nil }
            #expect(try await client.letGo(render.id, as: ada).status == .noContent)
            _ = try await eventually("the phrases being spoken given up", every: .milliseconds(10)) { engine.speaking == 0 ? true : nil }

            // The gate opens and something else is spoken to its end: nothing more of the first was asked.
            engine.open()
            let other = try await client.startRender("Something else.", as: ada).decode(SpeechRenderInfo.self)
            #expect(try await client.waitForRender(other.id, as: ada).status == .done)
            #expect(engine.asked == ["Phrase number 1 of the evening.", "Phrase number 2 of the evening.", "Something else."])
            #expect(try await client.renderInfo(render.id, as: ada).status == .failed)
        }
    }

    @Test("the same script asked for again after letting go renders afresh, whole, and the cache keeps nothing half-made",
          arguments: TestDatabase.all)
    func rendersAgain(database: TestDatabase) async throws {
        let engine = GatedEngine()
        try await withTestApp(database, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let left = try await client.startRender(eightPhrases, as: ada).decode(SpeechRenderInfo.self)
            _ = try await eventually("the first phrases asked for", every: .milliseconds(10)) { engine.calls == 2 ? true : nil }
            #expect(try await client.letGo(left.id, as: ada).status == .noContent)

            // Not found finished in the cache: spoken again from the start.
            let again = try await client.startRender(eightPhrases, as: ada)
            #expect(again.status == .accepted, "\(again.text)")
            engine.open()
            let done = try await client.waitForRender(try again.decode(SpeechRenderInfo.self).id, as: ada)
            #expect(done.status == .done, "\(done.error ?? "")")
            let timeline = try await client.send(.GET, try #require(done.timelineURL), auth: .cookie(ada)).decode(RenderTimeline.self)
            #expect(timeline.phrases.map(\.text) == (1...8).map { "Phrase number \($0) of the evening." })
            #expect(try #require(done.durationMs) == timeline.durationMs && timeline.durationMs > 8 * 1200)
            let audio = try await client.send(.GET, try #require(done.audioURL), auth: .cookie(ada))
            #expect(audio.status == .ok && audio.bytes.count > 1000)
            #expect(engine.asked.filter { $0 == "Phrase number 8 of the evening." }.count == 1)

            // The render let go of leaves no scratch folder: only the finished render is kept.
            let cache = client.app.speech.service.directory
            let kept = try await eventually("the cache holding only the finished render", every: .milliseconds(10)) {
                let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
                return names.count == 1 ? names : nil
            }
            #expect(client.app.speech.service.files(kept[0], format: .m4a) != nil)
        }
    }

    @Test("a render someone else still waits for goes on when one person lets go of it")
    func othersStillWait() async throws {
        let engine = GatedEngine()
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            // The same script three times: one render speaks it for all three rows.
            let adas = try await client.startRender(eightPhrases, as: ada).decode(SpeechRenderInfo.self)
            let graces = try await client.startRender(eightPhrases, as: grace).decode(SpeechRenderInfo.self)
            let adasAgain = try await client.startRender(eightPhrases, as: ada).decode(SpeechRenderInfo.self)
            _ = try await eventually("the first phrases asked for", every: .milliseconds(10)) { engine.calls == 2 ? true : nil }

            #expect(try await client.letGo(adas.id, as: ada).status == .noContent)
            #expect(try await client.letGo(adasAgain.id, as: ada).status == .noContent)
            engine.open()
            let done = try await client.waitForRender(graces.id, as: grace)
            #expect(done.status == .done, "\(done.error ?? "")")
            #expect(try await client.send(.GET, try #require(done.audioURL), auth: .cookie(grace)).status == .ok)
            // Spoken once, phrase by phrase, without starting over.
            #expect(engine.asked == (1...8).map { "Phrase number \($0) of the evening." })
            for id in [adas.id, adasAgain.id] {
                let info = try await client.renderInfo(id, as: ada)
                #expect(info.status == .failed && info.error == SpeechController.stoppedReason)
            }
        }
    }

    @Test("letting go of a finished render changes nothing: it stays done and its audio is still served", arguments: TestDatabase.all)
    func finishedStays(database: TestDatabase) async throws {
        let engine = GatedEngine(open: true)
        try await withTestApp(database, speech: SpeechEngines([engine])) { client in
            let ada = try await client.setUpOwner()
            let render = try await client.startRender("Good night. (1s) Sleep well.", format: "mp3", as: ada).decode(SpeechRenderInfo.self)
            let done = try await client.waitForRender(render.id, as: ada)
            #expect(try await client.letGo(render.id, as: ada).status == .noContent)
            #expect(try await client.renderInfo(render.id, as: ada) == done)
            let audio = try await client.send(.GET, try #require(done.audioURL), auth: .cookie(ada))
            #expect(audio.status == .ok && audio.headers.first(name: .contentType) == "audio/mpeg" && audio.bytes.count > 1000)
            // Still in the cache for anyone who asks for it.
            #expect(try await client.startRender("Good night. (1s) Sleep well.", format: "mp3", as: ada).status == .created)
            #expect(engine.calls == 2)
        }
    }

    @Test("real speech: a long eSpeak NG render let go of stops, and the same script asked again is spoken whole")
    func realEngine() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([ESpeakEngine()])) { client in
            let ada = try await client.setUpOwner()
            let script = (1...30).map { "Line \($0) of a long story, told slowly by the fire." }.joined(separator: "\n")
            let left = try await client.startRender(script, voice: "en-us", format: "opus", as: ada).decode(SpeechRenderInfo.self)
            #expect(try await client.letGo(left.id, as: ada).status == .noContent)
            let stopped = try await client.renderInfo(left.id, as: ada)
            #expect(stopped.status == .failed || stopped.status == .done, "\(stopped)")   // done only if it beat the DELETE

            let again = try await client.startRender(script, voice: "en-us", format: "opus", as: ada).decode(SpeechRenderInfo.self)
            let done = try await client.waitForRender(again.id, as: ada)
            #expect(done.status == .done, "\(done.error ?? "")")
            let timeline = try await client.send(.GET, try #require(done.timelineURL), auth: .cookie(ada)).decode(RenderTimeline.self)
            #expect(timeline.phrases.count == 30 && timeline.phrases.last?.text == "Line 30 of a long story, told slowly by the fire.")
            let audio = try await client.send(.GET, try #require(done.audioURL), auth: .cookie(ada))
            #expect(audio.text.utf8.starts(with: "OggS".utf8))
        }
    }
}
