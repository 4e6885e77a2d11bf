import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Plans: Free and Plus, the owner's grants, the development bypass, and what Plus unlocks")
struct PlanAPITests {
    @Test("a Free account meets plus_required on premium themes and icons; the owner's grant unlocks them", arguments: TestDatabase.all)
    func grants(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let plan = try await client.send(.GET, "/api/plan", auth: .cookie(grace)).decode(PlanInfo.self)
            #expect(plan.plan == .free && plan.effective == .free && !plan.developmentMode && plan.ownerName == "ada")
            #expect(plan.features.map(\.id) == ["themes", "icons", "rhymeFallback", "aiCowriter", "musicIntegrations"])
            #expect(plan.features.map(\.status) == ["locked", "locked", "coming", "coming", "coming"])

            // Free themes and the classic icon are for everyone.
            let free = try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .plainLight, icon: .classic), auth: .cookie(grace))
            #expect(free.status == .ok)
            for patch in [UserSettings(theme: .velvetHour), UserSettings(icon: .lavender)] {
                let locked = try await client.send(.PATCH, "/api/settings", json: patch, auth: .cookie(grace))
                #expect(locked.status == .forbidden && locked.text.contains("plus_required"), "\(locked.text)")
            }
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(grace)).decode(UserSettings.self).theme == .plainLight)

            // Only the owner grants.
            let graceID = try await client.send(.GET, "/api/auth/me", auth: .cookie(grace)).decode(SessionInfo.self).user.id
            let selfGrant = try await client.send(.PUT, "/api/users/\(graceID)/plan", json: PlanGrant(plan: .plus), auth: .cookie(grace))
            #expect(selfGrant.status == .forbidden)
            let granted = try await client.send(.PUT, "/api/users/\(graceID)/plan", json: PlanGrant(plan: .plus), auth: .cookie(ada))
            #expect(try granted.status == .ok && granted.decode(UserInfo.self).plan == .plus)
            let missing = try await client.send(.PUT, "/api/users/\(UUID())/plan", json: PlanGrant(plan: .plus), auth: .cookie(ada))
            #expect(missing.status == .notFound)

            // At once, without signing in again.
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(grace)).decode(SessionInfo.self).user.plan == .plus)
            let plus = try await client.send(.GET, "/api/plan", auth: .cookie(grace)).decode(PlanInfo.self)
            #expect(plus.effective == .plus && plus.features.prefix(2).allSatisfy { $0.status == "included" })
            // What is not built yet stays "coming" even with Plus: nothing pretends to work.
            #expect(plus.features.suffix(3).allSatisfy { $0.status == "coming" })
            let themed = try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .velvetHour, icon: .sunrise), auth: .cookie(grace))
            #expect(themed.status == .ok)
            let settings = try themed.decode(UserSettings.self)
            #expect(settings.theme == .velvetHour && settings.icon == .sunrise)

            // Taken back: the premium choices fall back to the defaults, and nothing else is lost.
            _ = try await client.send(.PUT, "/api/users/\(graceID)/plan", json: PlanGrant(plan: .free), auth: .cookie(ada))
            let after = try await client.send(.GET, "/api/settings", auth: .cookie(grace)).decode(UserSettings.self)
            #expect(after.theme == .retroFuturistic && after.icon == .classic)
            // Ada's plan is hers: Grace's grant did not touch it.
            #expect(try await client.send(.GET, "/api/plan", auth: .cookie(ada)).decode(PlanInfo.self).effective == .free)
        }
    }

    @Test("Bypass IAP (Dev) is refused in production and unlocks everything for that account in development", arguments: [TestDatabase.sqlite])
    func bypass(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let refused = try await client.send(.PUT, "/api/plan/bypass", json: PlanBypass(enabled: true), auth: .cookie(ada))
            #expect(refused.status == .forbidden && refused.text.contains("development_only"), "\(refused.text)")
            #expect(try await client.send(.GET, "/api/plan", auth: .cookie(ada)).decode(PlanInfo.self).effective == .free)
        }
        try await withTestApp(database, adjust: { $0.developmentMode = true }) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let on = try await client.send(.PUT, "/api/plan/bypass", json: PlanBypass(enabled: true), auth: .cookie(grace))
            #expect(on.status == .ok, "\(on.text)")
            let plan = try on.decode(PlanInfo.self)
            #expect(plan.developmentMode && plan.bypass && plan.plan == .free && plan.effective == .plus)
            #expect(try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .paperMoon), auth: .cookie(grace)).status == .ok)
            // Only for that account.
            #expect(try await client.send(.PATCH, "/api/settings", json: UserSettings(theme: .paperMoon), auth: .cookie(ada)).status == .forbidden)
            let off = try await client.send(.PUT, "/api/plan/bypass", json: PlanBypass(enabled: false), auth: .cookie(grace)).decode(PlanInfo.self)
            #expect(off.effective == .free)
        }
    }

    @Test("REVERIE_ENV takes development or production and nothing else")
    func environment() throws {
        let web = { "/tmp" }
        #expect(try !ServerConfig.resolve(environment: [:], locateWeb: web).developmentMode)
        #expect(try ServerConfig.resolve(environment: ["REVERIE_ENV": "development"], locateWeb: web).developmentMode)
        #expect(try !ServerConfig.resolve(environment: ["REVERIE_ENV": "Production"], locateWeb: web).developmentMode)
        #expect(throws: ConfigError.self) { try ServerConfig.resolve(environment: ["REVERIE_ENV": "dev"], locateWeb: web) }
    }
}
