import Foundation
import ReverieAPI
import Speech
@testable import ReverieServer
import Testing
import Vapor
import SharedCases

/// Several Reverie servers on one PostgreSQL database, as `make run-front SERVERS=2` runs them
/// (issue 32): sessions work on both, a revoked token stops working on both within the sign-in
/// cache's second, and listening progress written through both stays in the order it was made.
/// (Jobs taken over from a server that went away: JobWorkersTests and PodcastAPITests.)
@Suite("Several servers on one database")
struct SeveralServersTests {
    static let postgres = TestDatabase.all.filter { if case .postgres = $0 { true } else { false } }

    @Test("a session made on one server works on the other; a revoked token fails on both", arguments: postgres)
    func sessionsAndRevocation(database: TestDatabase) async throws {
        try await withTestApp(database) { one in
            try await withSecondServer(beside: one) { two in
                let cookie = try await one.setUpOwner("ada")
                #expect(try await two.send(.GET, "/api/auth/me", auth: .cookie(cookie)).decode(SessionInfo.self).user.username == "ada")
                let token = try await one.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "script"), auth: .cookie(cookie))
                    .decode(CreatedToken.self)
                // Both servers have read it, so both hold it in their sign-in cache.
                #expect(try await one.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .ok)
                #expect(try await two.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .ok)
                #expect(try await two.send(.DELETE, "/api/tokens/\(token.token.id)", auth: .cookie(cookie)).status == .noContent)
                // The server that revoked it refuses it at once; the other once its cached sign-in
                // (kept at most SessionAuthenticator.recheckAfter, a second) is read again.
                #expect(try await two.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .unauthorized)
                #expect(SessionAuthenticator.recheckAfter == .seconds(1))
                _ = try await eventually("the other server refuses the revoked token") {
                    try await one.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .unauthorized ? true : nil
                }
            }
        }
    }

    @Test("progress written through both servers in turn keeps the order it was made in", arguments: postgres)
    func progressStaysOrdered(database: TestDatabase) async throws {
        try await withTestApp(database) { one in
            try await withSecondServer(beside: one) { two in
                let cookie = try await one.setUpOwner("ada")
                let item = "winddown:yoga_nidra_10min"
                // In the past: an event from a device clock ahead of the server's counts as now.
                let start = one.clock.now.addingTimeInterval(-1_000)
                // Two devices, each talking to a different server; the later event always wins,
                // whichever server has it and in whatever order the servers receive them.
                let events = (0..<12).map { n in
                    ProgressEventInput(id: "e\(n)", item: item, device: n % 2 == 0 ? "phone" : "laptop",
                                       at: start.addingTimeInterval(Double(n) * 15), position: Double(n) * 15, kind: "play")
                }
                for (n, event) in events.enumerated().reversed() {
                    let server = n % 2 == 0 ? one : two
                    #expect(try await server.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [event]),
                                                  auth: .cookie(cookie)).status == .ok)
                }
                for server in [one, two] {
                    let place = try await server.send(.GET, "/api/progress/\(item)", auth: .cookie(cookie)).decode(ItemProgress.self)
                    #expect(place.position == 165, "the place went backwards")
                }
            }
        }
    }

    @Test("a render whose server stopped is spoken by the other, from its script, and its person gets it", arguments: TestDatabase.all)
    func renderTakenOver(database: TestDatabase) async throws {
        let stuck = GatedEngine()   // the first server never gets past the first phrase: it has stopped
        try await withTestApp(database, speech: SpeechEngines([stuck])) { one in
            let ada = try await one.setUpOwner("ada")
            let started = try await one.startRender("The lake is still. Rest now.", as: ada)
            let id = try started.decode(SpeechRenderInfo.self).id
            try await withSecondServer(beside: one, speech: SpeechEngines([GatedEngine(open: true)])) { two in
                // While the first still says it speaks it (just now), the other leaves it alone.
                await two.app.speech.takeOverStalled(repository: FluentSpeechRenderRepository(database: two.app.db), now: two.clock.closure, logger: two.app.logger)
                #expect(try await two.send(.GET, "/api/speech/renders/\(id)", auth: .cookie(ada)).decode(SpeechRenderInfo.self).status == .rendering)
                // A minute and more without a word from it: the other takes it over and speaks it.
                one.clock.advance(by: SpeechJobs.stalledAfter + 1)
                await two.app.speech.takeOverStalled(repository: FluentSpeechRenderRepository(database: two.app.db), now: two.clock.closure, logger: two.app.logger)
                let done = try await two.waitForRender(id, as: ada)
                #expect(done.status == .done)
                #expect(try await two.send(.GET, "/api/speech/renders/\(id)/audio", auth: .cookie(ada)).status == .ok)
                #expect(try await one.send(.GET, "/api/speech/renders/\(id)", auth: .cookie(ada)).decode(SpeechRenderInfo.self).status == .done,
                        "the first server's person sees it done too")
            }
            stuck.open()   // lets the first server's task end, so it can shut down
        }
    }

    @Test("a render let go of through the other server stops being spoken on its own within a job poll, and its place is given back", arguments: TestDatabase.all)
    func letGoThroughTheOther(database: TestDatabase) async throws {
        let stuck = GatedEngine()   // the first server is at the first phrase: it speaks on until told
        try await withTestApp(database, speech: SpeechEngines([stuck])) { one in
            let ada = try await one.setUpOwner("ada")
            let id = try await one.startRender("The lake is still. Rest now.", as: ada).decode(SpeechRenderInfo.self).id
            _ = try await eventually("the first server speaks it") { stuck.speaking > 0 ? true : nil }
            try await withSecondServer(beside: one) { two in
                #expect(try await two.send(.DELETE, "/api/speech/renders/\(id)", auth: .cookie(ada)).status == .noContent)
                let info = try await one.send(.GET, "/api/speech/renders/\(id)", auth: .cookie(ada)).decode(SpeechRenderInfo.self)
                #expect(info.status == .failed && info.error == SpeechController.stoppedReason)
            }
            // Until its next poll the first server speaks on; at it, it lets go.
            #expect(stuck.speaking > 0)
            await one.app.speech.takeOverStalled(repository: FluentSpeechRenderRepository(database: one.app.db), now: one.clock.closure, logger: one.app.logger)
            _ = try await eventually("the first server stops speaking it") { stuck.speaking == 0 ? true : nil }
            // Ada's place among her running renders is hers again: as many new ones start as ever.
            for n in 0..<(try #require(one.config)).speechMaxConcurrentRenders {
                #expect(try await one.startRender("Another evening, number \(n).", as: ada).status == .accepted)
            }
            stuck.open()   // lets the new renders end, so the server can shut down
        }
    }

    /// A second server configured like `one` on the same database, its requests sent in memory.
    private func withSecondServer(beside one: TestClient, speech: SpeechEngines = SpeechEngines([]),
                                  _ body: (TestClient) async throws -> Void) async throws {
        let other = try await Application.make(.testing)
        other.logger.logLevel = .warning
        do {
            try await configure(other, try #require(one.config), now: one.clock.closure, speech: speech)
            try await body(TestClient(app: other, clock: one.clock, config: one.config))
        } catch {
            try? await other.asyncShutdown()
            throw error
        }
        try? await other.asyncShutdown()
    }
}
