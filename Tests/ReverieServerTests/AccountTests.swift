import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Accounts")
struct AccountTests {
    @Test("a fresh server asks for setup once; the owner is created and signed in", arguments: TestDatabase.all)
    func setupOnce(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            #expect(try await client.send(.GET, "/api/setup").decode(SetupStatus.self) == SetupStatus(needsSetup: true))

            let reply = try await client.send(.POST, "/api/setup", json: Credentials(username: " Ada ", password: "correct horse"))
            #expect(reply.status == .created)
            let session = try reply.decode(SessionInfo.self)
            #expect(session.user.username == "ada")
            #expect(session.user.isOwner)
            let cookieLine = try #require(reply.headers[.setCookie].first)
            #expect(cookieLine.contains("HttpOnly"))
            #expect(cookieLine.contains("SameSite=Strict"))

            #expect(try await client.send(.GET, "/api/setup").decode(SetupStatus.self) == SetupStatus(needsSetup: false))
            let again = try await client.send(.POST, "/api/setup", json: Credentials(username: "mallory", password: "takeover!!"))
            #expect(again.status == .conflict)
            #expect(again.error?.code == "already_set_up")
            #expect(try await client.send(.POST, "/api/auth/login", json: Credentials(username: "mallory", password: "takeover!!")).status == .unauthorized)
        }
    }

    @Test("setup refuses a short password and creates nothing", arguments: TestDatabase.all)
    func setupValidates(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let reply = try await client.send(.POST, "/api/setup", json: Credentials(username: "ada", password: "short"))
            #expect(reply.status == .badRequest)
            #expect(reply.error?.code == "weak_password")
            #expect(reply.error?.message.contains("8") == true)
            let badName = try await client.send(.POST, "/api/setup", json: Credentials(username: "ada lovelace", password: "long enough"))
            #expect(badName.error?.code == "invalid_username")
            #expect(try await client.send(.GET, "/api/setup").decode(SetupStatus.self).needsSetup)
        }
    }

    @Test("login, use the session, logout ends it", arguments: TestDatabase.all)
    func loginLogout(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            try await client.setUpOwner()
            #expect(try await client.send(.GET, "/api/auth/me").status == .unauthorized)

            let cookie = try await client.login("ADA", "correct horse")
            let me = try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie))
            #expect(try me.decode(SessionInfo.self).user.username == "ada")

            let logout = try await client.send(.POST, "/api/auth/logout", auth: .cookie(cookie))
            #expect(logout.status == .noContent)
            #expect(logout.headers[.setCookie].first?.contains("Max-Age=0") == true)
            let after = try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie))
            #expect(after.status == .unauthorized)
            #expect(after.error?.code == "unauthorized")
        }
    }

    @Test("a long passphrase counts in full, past bcrypt's 72 bytes", arguments: [TestDatabase.sqlite])
    func longPassphrase(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let long = String(repeating: "a", count: 80)
            try await client.setUpOwner(password: long + "1")
            let wrong = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ada", password: long + "2"))
            #expect(wrong.status == .unauthorized)
            _ = try await client.login("ada", long + "1")
        }
    }

    @Test("unknown user and wrong password get the same answer", arguments: TestDatabase.all)
    func noEnumeration(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            try await client.setUpOwner()
            let wrongPassword = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ada", password: "wrong password"))
            let unknownUser = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "nobody", password: "wrong password"))
            #expect(wrongPassword.status == .unauthorized)
            #expect(wrongPassword.status == unknownUser.status)
            #expect(wrongPassword.text == unknownUser.text)
            #expect(wrongPassword.sessionCookie == nil)
        }
    }

    @Test("repeated failed logins are refused for a while, even with the right password", arguments: TestDatabase.all)
    func bruteForceSlowed(database: TestDatabase) async throws {
        let clock = TestNow()
        try await withTestApp(database, clock: clock) { client in
            try await client.setUpOwner()
            for _ in 0..<6 {
                let reply = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ada", password: "guess guess"))
                #expect(reply.status == .unauthorized)
            }
            let locked = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ada", password: "correct horse"))
            #expect(locked.status == .tooManyRequests)
            #expect(locked.error?.code == "too_many_attempts")
            #expect(locked.headers.first(name: "Retry-After") == "1")
            // An unknown account is throttled the same way, so lockouts do not reveal who exists.
            for _ in 0..<6 {
                _ = try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ghost", password: "guess guess"))
            }
            #expect(try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ghost", password: "guess guess")).status == .tooManyRequests)

            clock.advance(by: 2)
            _ = try await client.login("ada", "correct horse")
        }
    }

    @Test("personal tokens: create, use as bearer, list without secret, revoke", arguments: TestDatabase.all)
    func personalTokens(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let cookie = try await client.setUpOwner()
            let created = try await client.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "laptop script"), auth: .cookie(cookie))
            #expect(created.status == .created)
            let token = try created.decode(CreatedToken.self)
            #expect(token.secret.hasPrefix("rvr_"))
            #expect(token.secret.hasPrefix(token.token.prefix))

            let me = try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret))
            #expect(try me.decode(SessionInfo.self).user.username == "ada")

            let list = try await client.send(.GET, "/api/tokens", auth: .bearer(token.secret))
            let tokens = try list.decode([TokenInfo].self)
            #expect(tokens.map(\.name) == ["laptop script"])
            #expect(tokens.first?.lastUsedAt != nil)
            #expect(!list.text.contains(token.secret))

            // A session secret is not a bearer token and a personal token is not a cookie.
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(cookie)).status == .unauthorized)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(token.secret)).status == .unauthorized)

            let revoke = try await client.send(.DELETE, "/api/tokens/\(token.token.id)", auth: .cookie(cookie))
            #expect(revoke.status == .noContent)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .unauthorized)
            #expect(try await client.send(.GET, "/api/tokens", auth: .cookie(cookie)).decode([TokenInfo].self).isEmpty)
            #expect(try await client.send(.DELETE, "/api/tokens/\(token.token.id)", auth: .cookie(cookie)).status == .notFound)
        }
    }

    @Test("an unused session expires after its lifetime", arguments: [TestDatabase.sqlite])
    func sessionExpiry(database: TestDatabase) async throws {
        let clock = TestNow()
        try await withTestApp(database, clock: clock) { client in
            let cookie = try await client.setUpOwner()
            clock.advance(by: 29 * 24 * 3600)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).status == .ok)
            // Use slid the expiry forward: 29 more days are fine, 31 days of silence are not.
            clock.advance(by: 29 * 24 * 3600)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).status == .ok)
            clock.advance(by: 31 * 24 * 3600)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).status == .unauthorized)
        }
    }

    @Test("the owner adds and removes people; others cannot", arguments: TestDatabase.all)
    func ownerManagesUsers(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: owner)

            let users = try await client.send(.GET, "/api/users", auth: .cookie(owner)).decode([UserInfo].self)
            #expect(users.map(\.username) == ["ada", "grace"])
            #expect(users.map(\.isOwner) == [true, false])

            let forbidden = try await client.send(.POST, "/api/users", json: Credentials(username: "eve", password: "long enough"), auth: .cookie(grace))
            #expect(forbidden.status == .forbidden)
            #expect(forbidden.error?.code == "owner_only")

            let duplicate = try await client.send(.POST, "/api/users", json: Credentials(username: "Grace", password: "long enough"), auth: .cookie(owner))
            #expect(duplicate.status == .conflict)
            #expect(duplicate.error?.code == "username_taken")

            let ownerID = try #require(users.first?.id)
            #expect(try await client.send(.DELETE, "/api/users/\(ownerID)", auth: .cookie(owner)).status == .conflict)

            let graceID = try #require(users.last?.id)
            #expect(try await client.send(.DELETE, "/api/users/\(graceID)", auth: .cookie(owner)).status == .noContent)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(grace)).status == .unauthorized)
            #expect(try await client.send(.DELETE, "/api/users/\(graceID)", auth: .cookie(owner)).status == .notFound)
        }
    }

    @Test("changing your password signs out your other sessions and tokens and keeps this one", arguments: TestDatabase.all)
    func changeOwnPassword(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let here = try await client.setUpOwner()
            let phone = try await client.login("ada", "correct horse")
            let token = try await client.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "script"), auth: .cookie(here))
                .decode(CreatedToken.self)

            let wrong = try await client.send(.POST, "/api/auth/password",
                                              json: PasswordChange(currentPassword: "not it at all", newPassword: "a new secret"), auth: .cookie(here))
            #expect(wrong.status == .forbidden)
            #expect(wrong.error?.code == "wrong_password")
            let weak = try await client.send(.POST, "/api/auth/password",
                                             json: PasswordChange(currentPassword: "correct horse", newPassword: "short"), auth: .cookie(here))
            #expect(weak.error?.code == "weak_password")
            let same = try await client.send(.POST, "/api/auth/password",
                                             json: PasswordChange(currentPassword: "correct horse", newPassword: "correct horse"), auth: .cookie(here))
            #expect(same.error?.code == "same_password")
            // Refusals change nothing: every credential still works.
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(phone)).status == .ok)

            let changed = try await client.send(.POST, "/api/auth/password",
                                                json: PasswordChange(currentPassword: "correct horse", newPassword: "a new secret"), auth: .cookie(here))
            #expect(changed.status == .ok)
            #expect(try changed.decode(SessionInfo.self).user.username == "ada")
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(here)).status == .ok)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(phone)).status == .unauthorized)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .unauthorized)
            #expect(try await client.send(.POST, "/api/auth/login", json: Credentials(username: "ada", password: "correct horse")).status == .unauthorized)
            _ = try await client.login("ada", "a new secret")
        }
    }

    @Test("a forgotten password: the owner sets a temporary one, the person must choose their own, history stays", arguments: TestDatabase.all)
    func temporaryPassword(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: owner)
            let song = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Kept song", lyrics: ""), auth: .cookie(grace))
            #expect(song.status == .created)
            let users = try await client.send(.GET, "/api/users", auth: .cookie(owner)).decode([UserInfo].self)
            let graceID = try #require(users.first { $0.username == "grace" }?.id)
            let ownerID = try #require(users.first { $0.isOwner }?.id)

            let byGrace = try await client.send(.PUT, "/api/users/\(ownerID)/password", json: TemporaryPassword(password: "takeover!!"), auth: .cookie(grace))
            #expect(byGrace.status == .forbidden)
            let own = try await client.send(.PUT, "/api/users/\(ownerID)/password", json: TemporaryPassword(password: "whatever1"), auth: .cookie(owner))
            #expect(own.error?.code == "own_password")
            #expect(try await client.send(.PUT, "/api/users/\(UUID())/password", json: TemporaryPassword(password: "whatever1"), auth: .cookie(owner)).status == .notFound)

            let set = try await client.send(.PUT, "/api/users/\(graceID)/password", json: TemporaryPassword(password: "temporary1"), auth: .cookie(owner))
            #expect(set.status == .ok)
            #expect(try set.decode(UserInfo.self).mustChangePassword)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(grace)).status == .unauthorized)

            let temporary = try await client.login("grace", "temporary1")
            let me = try await client.send(.GET, "/api/auth/me", auth: .cookie(temporary)).decode(SessionInfo.self)
            #expect(me.user.mustChangePassword)
            let blocked = try await client.send(.GET, "/api/compositions", auth: .cookie(temporary))
            #expect(blocked.status == .forbidden)
            #expect(blocked.error?.code == "password_change_required")

            let chosen = try await client.send(.POST, "/api/auth/password",
                                               json: PasswordChange(currentPassword: "temporary1", newPassword: "graces own"), auth: .cookie(temporary))
            #expect(try chosen.decode(SessionInfo.self).user.mustChangePassword == false)
            let songs = try await client.send(.GET, "/api/compositions", auth: .cookie(temporary))
            #expect(songs.status == .ok)
            #expect(songs.text.contains("Kept song"))
        }
    }

    @Test("reverie user set-password: a new password for a named account, sessions signed out", arguments: TestDatabase.all)
    func setPasswordByName(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let user = try await client.app.accounts.setPassword(username: " ADA ", to: "remembered now", temporary: false)
            #expect(user.mustChangePassword == false)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(owner)).status == .unauthorized)
            let fresh = try await client.login("ada", "remembered now")
            #expect(try await client.send(.GET, "/api/settings", auth: .cookie(fresh)).status == .ok)
            await #expect(throws: AccountError.noSuchAccount("nobody")) {
                try await client.app.accounts.setPassword(username: "nobody", to: "remembered now", temporary: false)
            }
            await #expect(throws: AccountError.passwordTooShort(minimum: 8)) {
                try await client.app.accounts.setPassword(username: "ada", to: "short", temporary: false)
            }
            _ = try await client.login("ada", "remembered now")
        }
    }

    @Test("AccountService makes the first account the owner (reverie user create)", arguments: TestDatabase.all)
    func firstAccountIsOwner(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let first = try await client.app.accounts.createUser(username: "ada", password: "correct horse")
            let second = try await client.app.accounts.createUser(username: "grace", password: "correct horse")
            #expect(first.isOwner)
            #expect(!second.isOwner)
            #expect(try await client.send(.GET, "/api/setup").decode(SetupStatus.self).needsSetup == false)
        }
    }

    @Test("the account and token stores answer what they wrote as values, a token without its secret hash", arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let users = FluentUserRepository(database: client.app.db)
            let tokens = FluentAuthTokenRepository(database: client.app.db)
            let made = try await users.create(username: "ada", passwordHash: "bcrypt-of-ada", isOwner: true)
            #expect(made.createdAt != nil)
            // Dates as the database keeps them (PostgreSQL to the microsecond), the rest exactly as written.
            let found = try #require(try await users.find(id: made.id))
            let ada = UserRecord(id: made.id, username: "ada", passwordHash: "bcrypt-of-ada", isOwner: true, mustChangePassword: false,
                                 plan: "free", planBypass: false, createdAt: found.createdAt)
            #expect(found == ada)
            #expect(try await users.find(username: "ada") == ada)
            #expect(try await users.owner() == ada)
            #expect(try await users.find(id: UUID()) == nil)
            var plus = ada
            (plus.plan, plus.planBypass) = ("plus", true)
            #expect(try await users.setPlan(of: ada.id, plan: "plus", bypass: true) == plus)
            #expect(try await users.setPlan(of: UUID(), plan: "plus", bypass: nil) == nil)
            #expect(try await users.all() == [plus])

            let asAda = AuthenticatedUser(id: ada.id, username: "ada", isOwner: true, tokenID: UUID(), tokenKind: .session, accountCreatedAt: Date())
            let token = try await tokens.create(for: ada.id, kind: .personal, name: "laptop", secretHash: "sha-of-secret",
                                                prefix: "rvr_abcd", expiresAt: nil)
            #expect(token.createdAt != nil)
            let listed = try await tokens.personalTokens(ownedBy: asAda)
            #expect(listed == [AuthTokenRecord(id: token.id, ownerID: ada.id, kind: .personal, name: "laptop", prefix: "rvr_abcd",
                                               createdAt: listed.first?.createdAt, lastUsedAt: nil, expiresAt: nil)])
            let session = try await tokens.create(for: ada.id, kind: .session, name: "Safari", secretHash: "sha-of-cookie",
                                                  prefix: "rvr_efgh", expiresAt: Date(timeIntervalSince1970: 1_790_000_000))
            #expect(session.kind == .session && session.expiresAt == Date(timeIntervalSince1970: 1_790_000_000))
            #expect(try await tokens.personalTokens(ownedBy: asAda).map(\.id) == [token.id], "sessions are not personal tokens")
        }
    }
}
