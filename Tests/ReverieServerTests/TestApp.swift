import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
@testable import ReverieServer
import Speech
import SQLKit
import Testing
import Vapor
import VaporTesting

/// The databases the database-facing tests run on: SQLite always, PostgreSQL when
/// `REVERIE_TEST_POSTGRES_URL` names a server (`make test` starts a throwaway one).
enum TestDatabase: Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres(url: String)

    static var all: [TestDatabase] {
        var databases: [TestDatabase] = [.sqlite]
        if let url = ProcessInfo.processInfo.environment["REVERIE_TEST_POSTGRES_URL"], !url.isEmpty {
            databases.append(.postgres(url: url))
        }
        return databases
    }

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}

/// A clock the test moves by hand.
final class TestNow: Sendable {
    private let value = NIOLockedValueBox(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { value.withLockedValue { $0 } }
    func advance(by seconds: TimeInterval) { value.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
    var closure: @Sendable () -> Date { { self.now } }
}

/// The repository's `Web` directory.
let repositoryWebDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Web").path

/// A fully configured app on a fresh database, torn down afterwards.
func withTestApp(
    _ database: TestDatabase,
    clock: TestNow = TestNow(),
    loopClock: any Clock<Duration> = ContinuousClock(),
    maxBodyBytes: Int = 1 << 20,
    speech: SpeechEngines = SpeechEngines([]),
    speechMaxCharacters: Int = 100_000,
    maxUploadBytes: Int = 512 << 20,
    adjust: (inout ServerConfig) -> Void = { _ in },
    _ body: (TestClient) async throws -> Void
) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()

    let databaseConfig: ServerConfig.Database
    switch database {
    case .sqlite: databaseConfig = .sqlite(path: directory.appendingPathComponent("reverie.sqlite").path)
    case let .postgres(url): databaseConfig = .postgres(url: url, searchPath: [schema])
    }
    var config = ServerConfig(
        host: "127.0.0.1", port: 0, dataDirectory: directory.path, database: databaseConfig,
        webDirectory: repositoryWebDirectory, maxBodyBytes: maxBodyBytes, bcryptCost: 4,
        speechMaxCharacters: speechMaxCharacters)
    config.maxUploadBytes = maxUploadBytes
    config.patience = 10
    adjust(&config)

    let app = try await Application.make(.testing)
    app.logger.logLevel = .warning
    do {
        try await configure(app, config, now: clock.closure, clock: loopClock, speech: speech)
        try await body(TestClient(app: app, clock: clock, config: config))
    } catch {
        await teardown(app, database: database, schema: schema)
        throw error
    }
    await teardown(app, database: database, schema: schema)
}

private func teardown(_ app: Application, database: TestDatabase, schema: String) async {
    if case .postgres = database, let sql = app.db as? any SQLDatabase {
        try? await sql.raw("DROP SCHEMA IF EXISTS \(ident: schema) CASCADE").run()
    }
    try? await app.asyncShutdown()
}

/// Sends requests to the app in memory, as a browser (cookie) or a script (bearer) would.
struct TestClient: Sendable {
    let app: Application
    let clock: TestNow
    /// What the app was configured with (a second server on the same database uses it too).
    var config: ServerConfig? = nil

    /// How a request proves who it is.
    enum Auth: Sendable {
        case none
        case cookie(String)
        case bearer(String)
    }

    struct Reply: Sendable {
        var status: HTTPStatus
        var headers: HTTPHeaders
        /// The body as sent.
        var bytes: Data
        /// The body read as UTF-8 when asked (not for every reply: reading megabytes of audio as
        /// text, repairing each odd byte, took most of a minute).
        var text: String { String(decoding: bytes, as: UTF8.self) }

        func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(T.self, from: Data(text.utf8))
        }

        /// The `{"error":{…}}` body; fails the test when the body is not that shape.
        var error: APIErrorBody.Detail? {
            let body = try? decode(APIErrorBody.self)
            #expect(body != nil, "not the error shape: \(text)")
            return body?.error
        }

        /// The session cookie the reply set, if any.
        var sessionCookie: String? {
            headers[.setCookie].compactMap { line -> String? in
                guard line.hasPrefix(SessionAuthenticator.cookieName + "=") else { return nil }
                return String(line.dropFirst(SessionAuthenticator.cookieName.count + 1).prefix { $0 != ";" })
            }.first
        }
    }

    func send(_ method: HTTPMethod, _ path: String, json: (any Encodable & Sendable)? = nil, raw: String? = nil,
              data: Data? = nil, contentType: String = "application/json", auth: Auth = .none,
              headers extra: HTTPHeaders = [:]) async throws -> Reply {
        var headers = extra
        switch auth {
        case .none: break
        case let .cookie(value): headers.add(name: .cookie, value: "\(SessionAuthenticator.cookieName)=\(value)")
        case let .bearer(value): headers.bearerAuthorization = .init(token: value)
        }
        var body: ByteBuffer?
        if let json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            body = ByteBuffer(data: try encoder.encode(json))
        } else if let raw {
            body = ByteBuffer(string: raw)
        } else if let data {
            body = ByteBuffer(data: data)
        }
        if body != nil { headers.replaceOrAdd(name: .contentType, value: contentType) }
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: body)
        return Reply(status: response.status, headers: response.headers, bytes: Data(response.body.readableBytesView))
    }

    // MARK: - Shortcuts

    /// Creates the owner through the setup endpoint; returns their session cookie.
    @discardableResult
    func setUpOwner(_ username: String = "ada", password: String = "correct horse") async throws -> String {
        let reply = try await send(.POST, "/api/setup", json: Credentials(username: username, password: password))
        #expect(reply.status == .created, "\(reply.text)")
        return try #require(reply.sessionCookie)
    }

    /// Signs in and returns the session cookie.
    func login(_ username: String, _ password: String) async throws -> String {
        let reply = try await send(.POST, "/api/auth/login", json: Credentials(username: username, password: password))
        #expect(reply.status == .ok, "\(reply.text)")
        return try #require(reply.sessionCookie)
    }

    /// The owner adds an account; returns the new user's session cookie.
    func addUser(_ username: String, password: String = "another secret", by owner: String) async throws -> String {
        let reply = try await send(.POST, "/api/users", json: Credentials(username: username, password: password), auth: .cookie(owner))
        #expect(reply.status == .created, "\(reply.text)")
        return try await login(username, password)
    }
}

/// A web server of a test's own on 127.0.0.1, on a free port: the outside world a fetch meets
/// (LibriVox, podcast directories and feeds, article sites). `routes` adds its pages.
struct LocalSite: Sendable {
    let app: Application
    let url: URL

    static func start(_ routes: (Application) throws -> Void) async throws -> LocalSite {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .error
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        do {
            try routes(app)
            try await app.server.start()
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        let port = app.http.server.shared.localAddress?.port ?? 0
        return LocalSite(app: app, url: URL(string: "http://127.0.0.1:\(port)")!)
    }

    func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}

/// A scratch folder and a bare app (no configure), both gone afterwards: for tests of one
/// runtime part that needs an application's event loops and thread pool, not its routes.
func withScratchApp(_ body: (URL, Application) async throws -> Void) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scratch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let app = try await Application.make(.testing)
    do {
        try await body(folder, app)
    } catch {
        try await app.asyncShutdown()
        throw error
    }
    try await app.asyncShutdown()
}
