import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Settings")
struct SettingsTests {
    @Test("the theme defaults to RetroFuturistic and every theme can be saved", arguments: TestDatabase.all)
    func theme(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let cookie = try await client.setUpOwner()
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(cookie)).decode(UserSettings.self) == UserSettings(theme: .retroFuturistic))
            for theme in Theme.allCases {
                let saved = try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: theme), auth: .cookie(cookie))
                #expect(try saved.decode(UserSettings.self).theme == theme)
                #expect(try await client.send(.GET, "/api/settings", auth: .cookie(cookie)).decode(UserSettings.self).theme == theme)
            }
            // An empty patch changes nothing.
            let empty = try await client.send(.PATCH, "/api/settings", raw: "{}", auth: .cookie(cookie))
            #expect(try empty.decode(UserSettings.self).theme == Theme.allCases.last)
        }
    }

    @Test("an unknown theme is refused and the saved one kept", arguments: [TestDatabase.sqlite])
    func unknownTheme(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let cookie = try await client.setUpOwner()
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .plainDark), auth: .cookie(cookie))
            let reply = try await client.send(.PATCH, "/api/settings", raw: #"{"theme":"Neon"}"#, auth: .cookie(cookie))
            #expect(reply.status == .badRequest)
            #expect(reply.error?.code == "invalid_json")
            #expect(reply.error?.message.contains("theme") == true)
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(cookie)).decode(UserSettings.self).theme == .plainDark)
        }
    }

    @Test("settings need a signed-in user", arguments: [TestDatabase.sqlite])
    func needsAuth(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let reply = try await client.send(.GET, "/api/settings")
            #expect(reply.status == .unauthorized)
        }
    }
}
