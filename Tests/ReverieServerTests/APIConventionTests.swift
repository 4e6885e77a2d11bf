import Foundation
import Speech
import SQLKit
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor
import VaporTesting

@Suite("API conventions")
struct APIConventionTests {
    @Test("malformed JSON is a 400 that says so", arguments: [TestDatabase.sqlite])
    func malformedJSON(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let reply = try await client.send(.POST, "/api/setup", raw: "{\"username\": \"ada\", ")
            #expect(reply.status == .badRequest)
            #expect(reply.error == APIErrorBody.Detail(code: "invalid_json", message: "The body is not valid JSON."))
        }
    }

    @Test("a missing or mistyped field is named", arguments: [TestDatabase.sqlite])
    func missingField(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let missing = try await client.send(.POST, "/api/setup", raw: #"{"username":"ada"}"#)
            #expect(missing.status == .badRequest)
            #expect(missing.error?.message == "Missing field 'password'.")
            let mistyped = try await client.send(.POST, "/api/setup", raw: #"{"username":"ada","password":12345678}"#)
            #expect(mistyped.error?.message == "Field 'password' should be a string.")
        }
    }

    @Test("unknown /api routes are JSON 404s", arguments: [TestDatabase.sqlite])
    func unknownAPIRoute(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            for path in ["/api/nothing-here", "/api", "/api/users/extra/segments"] {
                let reply = try await client.send(.GET, path)
                #expect(reply.status == .notFound, "\(path)")
                #expect(reply.headers.contentType == .json, "\(path)")
                #expect(reply.error?.code == "not_found")
            }
        }
    }

    @Test("other unknown paths open the web app; missing assets stay 404", arguments: [TestDatabase.sqlite])
    func webFallback(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let index = try String(contentsOfFile: repositoryWebDirectory + "/index.html", encoding: .utf8)
            for path in ["/", "/write", "/settings/tokens"] {
                let reply = try await client.send(.GET, path)
                #expect(reply.status == .ok, "\(path)")
                #expect(reply.text == index, "\(path)")
            }
            #expect(try await client.send(.GET, "/missing-file.js").status == .notFound)
            let traversal = try await client.send(.GET, "/../Package.swift")
            #expect(traversal.status != .ok)
            #expect(!traversal.text.contains("PackageDescription"))
        }
    }

    @Test("an oversize body is refused with 413 by a running server", arguments: [TestDatabase.sqlite])
    func oversizeBody(database: TestDatabase) async throws {
        try await withTestApp(database, maxBodyBytes: 4096) { client in
            let big = "{\"username\":\"ada\",\"password\":\"" + String(repeating: "x", count: 10_000) + "\"}"
            let response = try await client.app.testing(method: .running(port: 0)).sendRequest(
                .POST, "/api/setup", headers: ["Content-Type": "application/json"], body: ByteBuffer(string: big))
            #expect(response.status == .payloadTooLarge)
            let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(buffer: response.body))
            #expect(body.error.code == "payload_too_large")
            #expect(try await client.send(.GET, "/api/setup").decode(SetupStatus.self).needsSetup)
        }
    }

    @Test("responses carry security headers", arguments: [TestDatabase.sqlite])
    func securityHeaders(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            for path in ["/", "/api/health", "/api/missing"] {
                let reply = try await client.send(.GET, path)
                #expect(reply.headers.first(name: "X-Content-Type-Options") == "nosniff")
                #expect(reply.headers.first(name: "Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            }
        }
    }
}

@Suite("Health")
struct HealthTests {
    @Test("reports version, database kind and speech engines", arguments: TestDatabase.all)
    func health(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let health = try await client.send(.GET, "/api/health").decode(HealthResponse.self)
            // No speech engine at all: the server answers, but says it cannot speak.
            #expect(health.status == "degraded")
            #expect(health.version == ReverieVersion.current)
            switch database {
            case .sqlite: #expect(health.database.kind == "sqlite")
            case .postgres: #expect(health.database.kind == "postgresql")
            }
            #expect(health.speech.engines.isEmpty)
            #expect(health.speech.voices.isEmpty)
        }
    }

    @Test("lists the engines and voices installed on this machine: Piper first, then eSpeak NG")
    func installedEngines() async throws {
        try await withTestApp(.sqlite, speech: await SpeechEngines.installed()) { client in
            let health = try await client.send(.GET, "/api/health").decode(HealthResponse.self)
            #expect(health.speech.engines == ["piper", "espeak-ng"])
            #expect(health.speech.voices.first?.id == "en_US-joe-medium")
            #expect(health.speech.voices.contains { $0.id == "en-us" && $0.engine == "espeak-ng" })
        }
    }

    @Test("the SQLite file uses the WAL journal")
    func walJournal() async throws {
        try await withTestApp(.sqlite) { client in
            let sql = try #require(client.app.db as? any SQLDatabase)
            struct Mode: Decodable { var journal_mode: String }
            let mode = try await sql.raw("PRAGMA journal_mode").first(decoding: Mode.self)
            #expect(mode?.journal_mode == "wal")
        }
    }
}
