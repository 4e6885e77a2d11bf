import Foundation
import ReverieAPI
@testable import ReverieServer
import Speech
import SQLKit
import Testing
import Vapor
import SharedCases

/// What a person trusts the server with: no request takes it down, a removed person leaves no
/// trace, health tells the truth.
@Suite("Trust")
struct TrustTests {
    // MARK: - Numbers from requests

    @Test("numbers in the query are range-checked: 400 naming the field, never a crash",
          arguments: ["seed=-9223372036854775808", "seed=9223372036854775807", "seed=-1", "seed=2147483647", "seed=abc",
                      "minutes=99999999999999999999", "minutes=-5", "minutes="])
    func boundedQueryNumbers(query: String) async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let path = query.hasPrefix("minutes") ? "/api/meditation/plan?\(query)" : "/api/meditation/plan?minutes=5&\(query)"
            let reply = try await client.send(.GET, path, auth: .cookie(ada))
            #expect(reply.status == .badRequest, "\(path): \(reply.text)")
            let field = String(query.prefix { $0 != "=" })
            #expect(reply.error?.message.hasPrefix(field + ":") == true, "\(reply.text)")
        }
    }

    @Test("the largest seed the document allows gives a plan, and the same seed the same plan")
    func largestSeed() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let first = try await client.send(.GET, "/api/meditation/plan?minutes=5&seed=2147483646", auth: .cookie(ada))
            #expect(first.status == .ok, "\(first.text)")
            let again = try await client.send(.GET, "/api/meditation/plan?minutes=5&seed=2147483646", auth: .cookie(ada))
            #expect(try first.decode(MeditationPlan.self).cues == again.decode(MeditationPlan.self).cues)
        }
    }

    @Test("near=banana is a 400, not silently false")
    func booleanQuery() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let reply = try await client.send(.GET, "/api/rhymes/moon?near=banana", auth: .cookie(ada))
            #expect(reply.status == .badRequest)
            #expect(reply.error?.message.hasPrefix("near:") == true)
        }
    }

    @Test("an empty JSON body is a 400 like every other unreadable body")
    func emptyBody() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let reply = try await client.send(.POST, "/api/compositions", raw: "", auth: .cookie(ada))
            #expect(reply.status == .badRequest, "\(reply.text)")
            #expect(reply.error?.code == "invalid_json")
        }
    }

    @Test("a range past the end of a file is clamped and answered 206 (RFC 9110), for web files and audio alike")
    func rangePastTheEnd() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let size = try #require(try FileManager.default.attributesOfItem(atPath: repositoryWebDirectory + "/icons/icon.svg")[.size] as? Int)
            let icon = try await client.send(.GET, "/icons/icon.svg", headers: ["Range": "bytes=100-20000000"])
            #expect(icon.status == .partialContent)
            #expect(icon.headers.first(name: "Content-Range") == "bytes 100-\(size - 1)/\(size)")
            let bell = try await client.send(.GET, "/audio/meditation/shared/bell", headers: ["Range": "bytes=0-99999999"])
            #expect(bell.status == .partialContent, "\(bell.text.prefix(200))")
            let whole = try #require(bell.headers.first(name: "Content-Range"))
            #expect(whole.hasPrefix("bytes 0-"))
            let past = try await client.send(.GET, "/icons/icon.svg", headers: ["Range": "bytes=\(size)-"])
            #expect(past.status == .rangeNotSatisfiable)
        }
    }

    @Test("many writes at once all succeed on SQLite: a connection waits for another's write instead of failing")
    func concurrentWrites() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            // Each does every kind of write: create, delete, restore, and a setting.
            let themes = ["PlainLight", "PlainDark", "DirtyDishes", "RetroFuturistic"]
            let statuses = try await withThrowingTaskGroup(of: [UInt].self) { group in
                // A 503 is the designed answer when every connection, or SQLite's write lock, stayed
                // busy for its 10 s (a loaded machine gets there): nothing was written. It counts only
                // with Retry-After, and then the same write is sent again after that wait, as a client
                // does, until it lands. Any other failure (a 500, a 503 without Retry-After) fails.
                @Sendable func send(_ method: HTTPMethod, _ path: String, json: (any Encodable & Sendable)? = nil) async throws -> TestClient.Reply {
                    var reply = try await client.send(method, path, json: json, auth: .cookie(ada))
                    var tries = 1
                    while reply.status == .serviceUnavailable {
                        let seconds = try #require(reply.headers.first(name: .retryAfter).flatMap(Int.init),
                                                   "\(method) \(path): 503 without a Retry-After in seconds: \(reply.text)")
                        try #require(tries < 20, "\(method) \(path): still 503 after \(tries) tries")
                        // The wait the server asked for: the client's behaviour, not a guess at timing.
                        try await Task.sleep(for: .seconds(seconds))
                        reply = try await client.send(method, path, json: json, auth: .cookie(ada))
                        tries += 1
                    }
                    return reply
                }
                for index in 0..<12 {
                    group.addTask {
                        let created = try await send(.POST, "/api/compositions", json: CompositionInput(title: "Song \(index)", lyrics: "words \(index)"))
                        guard created.status == .created else { return [created.status.code] }
                        let id = try created.decode(Composition.self).id
                        let deleted = try await send(.DELETE, "/api/compositions/\(id)").status
                        let restored = try await send(.POST, "/api/compositions/\(id)/restore").status
                        let setting = try await send(.PATCH, "/api/settings", json: ["theme": themes[index % 4]]).status
                        return [created.status.code, deleted.code, restored.code, setting.code]
                    }
                }
                return try await group.reduce(into: [[UInt]]()) { $0.append($1) }
            }
            #expect(statuses.count == 12)
            #expect(statuses.filter { $0 != [201, 204, 200, 200] }.isEmpty, "\(statuses.filter { $0 != [201, 204, 200, 200] })")
            let songs = try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self)
            #expect(songs.count == 12)
            // Every pooled connection (one per event loop) says so.
            for loop in client.app.eventLoopGroup.makeIterator() {
                let sql = try #require(client.app.databases.database(logger: client.app.logger, on: loop) as? any SQLDatabase)
                #expect(try await sql.raw("PRAGMA busy_timeout").first()?.decode(column: "timeout", as: Int.self) == 10000)
                #expect(try await sql.raw("PRAGMA secure_delete").first()?.decode(column: "secure_delete", as: Int.self) == 1)
            }
        }
    }

    // MARK: - Removing a person

    /// A word no song of anyone else's has, to look for in every byte afterwards.
    static let unusualWord = "Zyxquorblenthic"

    @Test("removing a person removes everything they own: rows, search index, renders; the words are in no file or table",
          arguments: TestDatabase.all)
    func removalLeavesNoTrace(database: TestDatabase) async throws {
        try await withTestApp(database, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: ada)
            let word = Self.unusualWord
            // A song, saved twice (old versions must go too), a conflict copy, one deleted song.
            let song = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "\(word) title", lyrics: "first \(word)\nline two"), auth: .cookie(bea))
            #expect(song.status == .created)
            let id = try song.decode(Composition.self).id
            for version in [1, 1] {
                _ = try await client.send(.PUT, "/api/compositions/\(id)", json: CompositionInput(title: "\(word) title", lyrics: "again \(word) \(version)"),
                                          auth: .cookie(bea), headers: ["If-Match": "\"\(version)\""])
            }
            let gone = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "deleted", lyrics: "\(word) deleted"), auth: .cookie(bea))
            _ = try await client.send(.DELETE, "/api/compositions/\(try gone.decode(Composition.self).id)", auth: .cookie(bea))
            // The song and its conflict copy (the second save above was stale); not the deleted one.
            #expect(try await client.send(.GET, "/api/compositions?q=\(word)", auth: .cookie(bea)).decode([CompositionSummary].self).count == 2)
            _ = try await client.send(.PATCH, "/api/settings", json: ["theme": "PlainLight"], auth: .cookie(bea))
            _ = try await client.send(.POST, "/api/tokens", json: ["name": word], auth: .cookie(bea))
            let now = client.clock.now
            let session = MeditationSessionRecord(id: UUID(), sessionType: "basic-breathing", startedAt: now.addingTimeInterval(-300), completedAt: now,
                                                  plannedDurationSeconds: 300, actualDurationSeconds: 300, completedFully: true)
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: session, auth: .cookie(bea)).status == .created)
            // Listening progress from a device she named with the word.
            let heard = ProgressEventsRequest(events: [ProgressEventInput(id: UUID().uuidString, item: "winddown:yoga_nidra_5min", device: word,
                                                                          at: now, position: 42, kind: "pause")])
            #expect(try await client.send(.POST, "/api/progress/events", json: heard, auth: .cookie(bea)).status == .ok)
            // A poem of her own for Bedside, and the played list its random pick keeps.
            let poem = BedsidePieceInput(kind: "poem", title: "\(word) poem", script: "The \(word) moon (2s)\nis up (4s)")
            #expect(try await client.send(.POST, "/api/bedside/pieces", json: poem, auth: .cookie(bea)).status == .created)
            #expect(try await client.send(.POST, "/api/bedside/next", json: BedsideNextRequest(kind: "poem"), auth: .cookie(bea)).status == .ok)
            // A render only bea asked for, and one both asked for.
            let own = try await client.startRender("\(word) spoken", as: bea).decode(SpeechRenderInfo.self)
            let shared = try await client.startRender("Shared words", as: bea).decode(SpeechRenderInfo.self)
            let adas = try await client.startRender("Shared words", as: ada).decode(SpeechRenderInfo.self)
            for render in [own, shared] { _ = try await client.waitForRender(render.id, as: bea) }
            _ = try await client.waitForRender(adas.id, as: ada)
            let speechCache = client.app.services.config.cacheDirectory("speech")
            let cached = { try FileManager.default.contentsOfDirectory(atPath: speechCache.path).filter { !$0.hasPrefix(".") }.count }
            #expect(try cached() == 2)

            let users = try await client.send(.GET, "/api/users", auth: .cookie(ada)).decode([UserInfo].self)
            let beaID = try #require(users.first { $0.username == "bea" }?.id)
            #expect(try await client.send(.DELETE, "/api/users/\(beaID)", auth: .cookie(ada)).status == .noContent)

            // The render only bea used is gone; the one ada shares stays and still plays.
            #expect(try cached() == 1)
            #expect(try await client.send(.GET, "/api/speech/renders/\(adas.id)/audio", auth: .cookie(ada)).status == .ok)
            // Her session no longer signs in.
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(bea)).status == .unauthorized)

            let sql = try #require(client.app.db as? any SQLDatabase)
            switch database {
            case .sqlite:
                let secure = try await sql.raw("PRAGMA secure_delete").first()?.decode(column: "secure_delete", as: Int.self)
                #expect(secure == 1)
                // (No checkpoint here: the files as the removal left them, its write-ahead log too.)
                let directory = client.app.services.config.dataDirectory
                let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("reverie.sqlite") }
                #expect(files.contains("reverie.sqlite"))
                for file in files {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
                    #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) is still readable in \(file)")
                    #expect(bytes.range(of: Data(word.lowercased().utf8)) == nil, "\(word.lowercased()) (the search index's form) is still in \(file)")
                }
            case .postgres:
                let tables = try await sql.raw("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()").all()
                    .map { try $0.decode(column: "table_name", as: String.self) }
                #expect(tables.contains("compositions"))
                for table in tables {
                    let hits = try await sql.raw("SELECT count(*) AS hits FROM \(ident: table) t WHERE t::text ILIKE \(bind: "%\(word)%")").first()?
                        .decode(column: "hits", as: Int.self)
                    #expect(hits == 0, "\(word) is still in \(table)")
                }
            }
            // Nothing of hers is left in any table that names an owner.
            for table in PersonalData.tables {
                let rows = try await sql.raw("SELECT count(*) AS rows FROM \(ident: table) WHERE owner_id = \(bind: beaID)").first()?
                    .decode(column: "rows", as: Int.self)
                #expect(rows == 0, "\(table) keeps \(rows ?? -1) rows of the removed person")
            }
        }
    }

    // MARK: - Health

    @Test("health runs a query: when the database cannot answer it, 503 saying so", arguments: TestDatabase.all)
    func healthNeedsTheDatabase(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let healthy = try await client.send(.GET, "/api/health")
            #expect(healthy.status == .ok)
            #expect(try healthy.decode(HealthResponse.self).database.latencyMs != nil)
            // A database that cannot answer the health query: the table it reads is gone.
            let sql = try #require(client.app.db as? any SQLDatabase)
            try await sql.raw("DROP TABLE _fluent_migrations").run()
            let reply = try await client.send(.GET, "/api/health")
            #expect(reply.status == .serviceUnavailable, "\(reply.text)")
            #expect(reply.error?.code == "database_unavailable")
        }
    }

    @Test("health names an engine this machine lacks as missing, with what to do, and says the server is degraded")
    func missingEngine() async throws {
        let reason = "Piper and its voice are not installed in .venv; run scripts/bootstrap.sh run (make run does)."
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)], missing: [.init(name: "piper", reason: reason)])) { client in
            let health = try await client.send(.GET, "/api/health").decode(HealthResponse.self)
            #expect(health.speech.engines == ["gated"])
            #expect(health.speech.states == [.init(name: "gated", state: .warming), .init(name: "piper", state: .missing, detail: reason)])
            #expect(health.status == "degraded")
        }
    }

    @Test("warming up loads the rhymes, speaks a word with each engine and the narration; health follows; the first analyze is then quick")
    func warmUp() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true), DeadEngine()])) { client in
            let before = try await client.send(.GET, "/api/health").decode(HealthResponse.self)
            #expect(before.status == "warming")
            #expect(before.rhymes.state == .warming)
            client.app.startWarmingUp(refreshInterval: .seconds(3600))
            let health = try await eventually("the warm-up finishing") {
                let health = try await client.send(.GET, "/api/health").decode(HealthResponse.self)
                return health.narration.state == .warming || health.rhymes.state == .warming ? nil : health
            }
            #expect(health.rhymes.state == .ready)
            #expect(health.narration.state == .ready, "\(health.narration)")
            #expect(health.speech.states == [.init(name: "gated", state: .ready),
                                              .init(name: "dead", state: .failed, detail: SpeechError.workerDied("test").description)])
            #expect(health.status == "degraded")
            // Narration is made: the plan has every length without speaking anything.
            let ada = try await client.setUpOwner()
            let plan = try await client.send(.GET, "/api/meditation/plan?minutes=5&seed=1", auth: .cookie(ada)).decode(MeditationPlan.self)
            #expect(plan.cues.allSatisfy { $0.audio.durationMs != nil })
        }
    }
}

/// An engine whose worker is always dead.
struct DeadEngine: SpeechEngine {
    let name = "dead"
    let version = "1"
    func voices() async throws -> [Voice] { [] }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        throw SpeechError.workerDied("test")
    }
}

@Suite("Web app files")
struct WebFileTests {
    @Test("the shell comes from memory with an ETag (304 when unchanged); app locations get it too; nothing outside the web folder")
    func shell() async throws {
        try await withTestApp(.sqlite) { client in
            let index = try String(contentsOfFile: repositoryWebDirectory + "/index.html", encoding: .utf8)
            let first = try await client.send(.GET, "/")
            #expect(first.status == .ok && first.text == index)
            #expect(first.headers.contentType == .html)
            let eTag = try #require(first.headers.first(name: .eTag))
            #expect(try await client.send(.GET, "/", headers: ["If-None-Match": eTag]).status == .notModified)
            #expect(try await client.send(.GET, "/write/1234").text == index)
            let script = try await client.send(.GET, "/app.js")
            #expect(script.status == .ok && script.headers.contentType?.subType == "javascript")
            #expect(try await client.send(.GET, "/missing.js").status == .notFound)
            for escape in ["/../Package.swift", "/%2e%2e/Package.swift", "/..%2fPackage.swift"] {
                let reply = try await client.send(.GET, escape)
                #expect(!reply.text.contains("swift-tools-version"), "\(escape) read a file outside Web/")
            }
        }
    }

    @Test("scripts and styles go gzip-compressed to browsers that accept it, each copy with its own ETag; images as they are")
    func compressed() async throws {
        try await withTestApp(.sqlite) { client in
            let source = try Data(contentsOf: URL(fileURLWithPath: repositoryWebDirectory + "/styles.css"))
            let packed = try await client.send(.GET, "/styles.css", headers: ["Accept-Encoding": "br, gzip;q=0.8"])
            #expect(packed.headers.first(name: .contentEncoding) == "gzip")
            #expect(packed.headers.first(name: .vary) == "Accept-Encoding")
            let bytes = packed.bytes
            #expect(bytes.count < source.count / 2, "compressed \(source.count) → \(bytes.count) bytes")
            #expect(try gunzip(bytes) == source)

            let plain = try await client.send(.GET, "/styles.css", headers: ["Accept-Encoding": "gzip;q=0"])
            #expect(plain.headers.first(name: .contentEncoding) == nil && plain.bytes == source)
            let packedTag = try #require(packed.headers.first(name: .eTag))
            let plainTag = try #require(plain.headers.first(name: .eTag))
            #expect(packedTag != plainTag)
            #expect(try await client.send(.GET, "/styles.css", headers: ["Accept-Encoding": "gzip", "If-None-Match": packedTag]).status == .notModified)
            #expect(try await client.send(.GET, "/styles.css", headers: ["Accept-Encoding": "gzip", "If-None-Match": plainTag]).status == .ok)

            let icon = try await client.send(.GET, "/icons/icon-192.png", headers: ["Accept-Encoding": "gzip"])
            #expect(icon.status == .ok && icon.headers.first(name: .contentEncoding) == nil)
        }
    }

    /// Decompresses with the system's gzip, so the test does not trust our own zlib call.
    private func gunzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return result
    }
}
