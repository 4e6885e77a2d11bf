import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Settings")
struct SettingsTests {
    @Test("the theme defaults to RetroFuturistic and every theme can be saved (the premium ones with Plus)", arguments: TestDatabase.all)
    func theme(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let cookie = try await client.setUpOwner()
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(cookie)).decode(UserSettings.self)
                == UserSettings(theme: .retroFuturistic, icon: .classic, bedside: SettingsController.bedsideDefaults))
            let me = try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).decode(SessionInfo.self).user.id
            _ = try await client.send(.PUT, "/api/users/\(me)/plan", json: PlanGrant(plan: .plus), auth: .cookie(cookie))
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

    @Test("Bedside's settings start at their defaults, change one field at a time, and are the person's own", arguments: TestDatabase.all)
    func bedside(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: ada)
            func bedside(_ cookie: String) async throws -> BedsideSettings {
                try #require(try await client.send(.GET, "/api/settings", auth: .cookie(cookie)).decode(UserSettings.self).bedside)
            }
            let defaults = try await bedside(ada)
            #expect(defaults.contentMode == "off" && defaults.lastContentMode == "meditation" && defaults.captions == true && defaults.rate == 1)
            #expect(defaults.room == "rain" && defaults.alarm == BedsideAlarm(time: "07:00", enabled: false, days: []) && defaults.voice == nil)

            // Two devices, two fields: both stay.
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(contentMode: "poetry", lastContentMode: "poetry")), auth: .cookie(ada))
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(voice: "en_US-joe-medium", rate: 0.9, captions: false)),
                                      auth: .cookie(ada))
            let alarm = BedsideAlarm(time: "06:45", enabled: true, days: [1, 2, 3, 4, 5])
            let saved = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(room: "ocean", contentCompletedSuccessfully: true, alarm: alarm)),
                                              auth: .cookie(ada)).decode(UserSettings.self)
            #expect(saved.theme == .retroFuturistic)
            let now = try await bedside(ada)
            #expect(now == saved.bedside)
            #expect(now.contentMode == "poetry" && now.lastContentMode == "poetry" && now.voice == "en_US-joe-medium" && now.rate == 0.9)
            #expect(now.captions == false && now.room == "ocean" && now.contentCompletedSuccessfully == true && now.alarm == alarm && now.roomVolume == 0.5)
            // "" goes back to the server's voice.
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(voice: "")), auth: .cookie(ada))
            #expect(try await bedside(ada).voice == nil)
            #expect(try await bedside(bea) == defaults, "another person's settings are untouched")
        }
    }

    @Test("Bedside settings out of range are refused, naming the field, and nothing is saved",
          arguments: [#"{"contentMode":"loud"}"#, #"{"lastContentMode":"off"}"#, #"{"rate":2}"#, #"{"roomVolume":-0.1}"#, #"{"room":"jungle"}"#,
                      #"{"alarm":{"time":"25:00","enabled":true,"days":[]}}"#, #"{"alarm":{"time":"7:5","enabled":true,"days":[]}}"#,
                      #"{"alarm":{"time":"+7:30","enabled":true,"days":[]}}"#, #"{"alarm":{"time":"07-30","enabled":true,"days":[]}}"#,
                      #"{"alarm":{"time":"07:00","enabled":true,"days":[7]}}"#, #"{"alarm":{"time":"07:00","enabled":true,"days":[1,1]}}"#,
                      #"{"contentMode":"poetry","rate":0.1}"#])
    func bedsideRefused(body: String) async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let reply = try await client.send(.PATCH, "/api/settings", raw: #"{"bedside":"# + body + "}", auth: .cookie(ada))
            #expect(reply.status == .badRequest && reply.text.contains("bedside."), "\(reply.text)")
            let kept = try await client.send(.GET, "/api/settings", auth: .cookie(ada)).decode(UserSettings.self)
            #expect(kept.bedside == SettingsController.bedsideDefaults)
        }
    }
}
