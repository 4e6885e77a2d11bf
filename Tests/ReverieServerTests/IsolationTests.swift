import Fluent
import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Isolation between users")
struct IsolationTests {
    @Test("another user's token answers 404 and stays valid", arguments: TestDatabase.all)
    func tokens(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let adaToken = try await client.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "ada's"), auth: .cookie(ada))
                .decode(CreatedToken.self)

            #expect(try await client.send(.GET, "/api/tokens", auth: .cookie(grace)).decode([TokenInfo].self).isEmpty)
            let revoke = try await client.send(.DELETE, "/api/tokens/\(adaToken.token.id)", auth: .cookie(grace))
            #expect(revoke.status == .notFound)
            #expect(revoke.error?.code == "not_found")
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(adaToken.secret)).status == .ok)
            // Not even the owner can revoke another person's token by id.
            let graceToken = try await client.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "grace's"), auth: .cookie(grace))
                .decode(CreatedToken.self)
            #expect(try await client.send(.DELETE, "/api/tokens/\(graceToken.token.id)", auth: .cookie(ada)).status == .notFound)
        }
    }

    @Test("settings are per user", arguments: TestDatabase.all)
    func settings(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .plainLight), auth: .cookie(ada))
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(grace)).decode(UserSettings.self).theme == .retroFuturistic)
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(ada)).decode(UserSettings.self).theme == .plainLight)
        }
    }

    @Test("a session's sign-in never reads another user's rows", arguments: [TestDatabase.sqlite])
    func ownedQueries(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            _ = try await client.addUser("grace", by: ada)
            let users = try await FluentUserRepository(database: client.app.db).all()
            let adaRecord = try #require(users.first { $0.username == "ada" })
            let graceRecord = try #require(users.first { $0.username == "grace" })
            let asGrace = AuthenticatedUser(id: graceRecord.id, username: "grace", isOwner: false, tokenID: UUID(), tokenKind: .session,
                                        accountCreatedAt: Date())
            let adaID = adaRecord.id
            let adaRows = try await AuthTokenModel.query(on: client.app.db).filter(\.$owner.$id == adaID).all()
            #expect(!adaRows.isEmpty)
            for row in adaRows {
                #expect(try await AuthTokenModel.find(row.requireID(), ownedBy: asGrace, on: client.app.db) == nil)
            }
        }
    }
}
