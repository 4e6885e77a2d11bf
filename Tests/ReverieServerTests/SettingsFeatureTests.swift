import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

/// The settings feature on its own, built from plain values with a store of the test's: what it
/// asks the store says more than the rows would (a refused change must not even be tried, and a
/// write that fails must not be answered as saved).
@Suite("Settings, the feature alone with an in-memory store")
struct SettingsFeatureTests {
    /// Settings kept in memory, counting the saves asked of it; `failing` makes each save throw.
    final class MemorySettings: SettingsRepository, Sendable {
        private let state = NIOLockedValueBox<(values: [UUID: [String: String]], saves: Int)>(([:], 0))
        let failing: Bool
        init(failing: Bool = false) { self.failing = failing }

        var saves: Int { state.withLockedValue { $0.saves } }

        func all(ownedBy user: AuthenticatedUser) async throws -> [String: String] {
            state.withLockedValue { $0.values[user.id] ?? [:] }
        }

        func save(_ values: [String: String], ownedBy user: AuthenticatedUser) async throws {
            state.withLockedValue { $0.saves += 1 }
            if failing { throw APIError(.serviceUnavailable, code: "busy", "The store is busy; try again.") }
            state.withLockedValue { $0.values[user.id, default: [:]].merge(values) { _, new in new } }
        }
    }

    /// Signs every request in as one person, as the session middleware would.
    struct SignedIn: AsyncMiddleware {
        let user: AuthenticatedUser
        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            request.auth.login(user)
            return try await next.respond(to: request)
        }
    }

    /// Runs `body` against only the settings feature, made with `store`.
    func withFeature(_ store: MemorySettings, plan: Plan = .free, _ body: (Application) async throws -> Void) async throws {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        do {
            let person = AuthenticatedUser(id: UUID(), username: "ada", isOwner: true, tokenID: UUID(), tokenKind: .session,
                                           accountCreatedAt: Date(), plan: plan)
            app.middleware.use(APIErrorMiddleware())
            app.middleware.use(SignedIn(user: person))
            for routes in SettingsFeature(settings: .fixed(store), developmentMode: false).routes { try app.register(collection: routes) }
            try await body(app)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    func patch(_ app: Application, _ json: String) async throws -> (status: HTTPStatus, body: String) {
        let response = try await app.testing().sendRequest(.PATCH, "/api/settings", headers: ["Content-Type": "application/json"],
                                                            body: ByteBuffer(string: json))
        return (response.status, response.body.string)
    }

    @Test("a change with one field refused writes none of it: the store is not asked to save, and the theme stays")
    func refusedWritesNothing() async throws {
        let store = MemorySettings()
        try await withFeature(store) { app in
            let refused = try await patch(app, #"{"theme":"PlainLight","bedside":{"rate":3}}"#)
            #expect(refused.status == .badRequest && refused.body.contains("bedside.rate"), "\(refused)")
            let premium = try await patch(app, #"{"theme":"VelvetHour"}"#)
            #expect(premium.status == .forbidden && premium.body.contains("plus_required"), "\(premium)")
            #expect(store.saves == 0)
            let kept = try await app.testing().sendRequest(.GET, "/api/settings").content.decode(UserSettings.self)
            #expect(kept.theme == .retroFuturistic)

            let saved = try await patch(app, #"{"theme":"PlainLight","bedside":{"rate":1.1}}"#)
            #expect(saved.status == .ok)
            #expect(store.saves == 1, "one change is one save, all its fields together")
            let now = try await app.testing().sendRequest(.GET, "/api/settings").content.decode(UserSettings.self)
            #expect(now.theme == .plainLight && now.bedside?.rate == 1.1)
        }
    }

    @Test("a save the store cannot make is answered as the store's error, never as saved")
    func failedSaveIsNotSaved() async throws {
        let store = MemorySettings(failing: true)
        try await withFeature(store) { app in
            let answer = try await patch(app, #"{"theme":"PlainDark"}"#)
            #expect(answer.status == .serviceUnavailable && answer.body.contains("try again"), "\(answer)")
            #expect(store.saves == 1)
            let kept = try await app.testing().sendRequest(.GET, "/api/settings").content.decode(UserSettings.self)
            #expect(kept.theme == .retroFuturistic)
        }
    }
}
