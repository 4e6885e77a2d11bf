import Fluent
import Foundation
import ReverieAPI
import SQLKit

/// A connected app as the apps table holds it (never its password).
struct AppRecord: Sendable, Equatable {
    var id: UUID
    var ownerID: UUID
    var kind: AppKind
    var name: String
    var prefix: String
    var createdAt: Date
    var lastUsedAt: Date?
    var lastAction: String?

    var info: AppInfo {
        AppInfo(id: id, kind: kind, name: name, prefix: prefix, createdAt: createdAt, lastUsedAt: lastUsedAt, lastAction: lastAction)
    }
}

/// What an app's session is: gpodder's cookie, or a wallabag client's OAuth access or refresh token.
enum AppSessionPurpose: String, Sendable {
    case cookie, access, refresh
}

/// An app signing in: the app and the person it acts for.
struct AppSignIn: Sendable, Equatable {
    var app: AppRecord
    var user: SignIn
}

/// Connected apps, their passwords' hashes and sealed copies, and their sign-in sessions.
protocol AppRepository: Sendable {
    func create(ownerID: UUID, kind: AppKind, name: String, secretHash: String, sealedSecret: String, prefix: String,
                client: (id: String, secretHash: String)?) async throws -> AppRecord
    /// The app whose OAuth client has this id and secret hash.
    func client(id: String, secretHash: String) async throws -> AppSignIn?
    /// The person's apps, newest first.
    func apps(ownedBy user: AuthenticatedUser) async throws -> [AppRecord]
    /// Revokes one of the person's apps with its sessions; `false` when they have no such app.
    func revoke(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
    /// The app of `kind` whose password has this hash, and its person.
    func signIn(secretHash: String, kind: AppKind) async throws -> AppSignIn?
    /// Every app of `kind` the person with this user name has, with its sealed password (for
    /// sign-ins that prove the password without sending it).
    func sealedSecrets(username: String, kind: AppKind) async throws -> [(AppSignIn, sealed: String)]
    /// Notes that the app was used now and, when given, what it did.
    func recordUse(_ id: UUID, at time: Date, action: String?) async throws
    /// A session for the app (a cookie, or an OAuth access or refresh token), signed in by the
    /// hash of its secret until `expiresAt`.
    func createSession(for app: AppRecord, purpose: AppSessionPurpose, secretHash: String, expiresAt: Date) async throws
    /// The app and person of a live session of `kind` for `purpose`.
    func session(secretHash: String, purpose: AppSessionPurpose, kind: AppKind, now: Date) async throws -> AppSignIn?
    func deleteSession(secretHash: String) async throws

    /// A login flow an app started (Nextcloud's v2) from `address`; `false` when `perAddress`
    /// flows from there, or `limit` in all, already wait.
    func startLoginFlow(loginToken: String, pollHash: String, name: String, address: String, expiresAt: Date, now: Date,
                        perAddress: Int, limit: Int) async throws -> Bool
    /// What the app that started the flow calls itself, while it waits for the person.
    func waitingLoginFlow(loginToken: String, now: Date) async throws -> String?
    /// The person approved the flow: its password, sealed, waits for the app to collect it.
    func approveLoginFlow(loginToken: String, ownerID: UUID, sealedSecret: String, now: Date) async throws -> Bool
    /// The user name and sealed password of an approved flow, given once (the flow goes).
    func collectLoginFlow(pollHash: String, now: Date) async throws -> (username: String, sealed: String)?
}

struct FluentAppRepository: AppRepository {
    let database: any Database

    func create(ownerID: UUID, kind: AppKind, name: String, secretHash: String, sealedSecret: String, prefix: String,
                client: (id: String, secretHash: String)?) async throws -> AppRecord {
        let row = AppModel(ownerID: ownerID, kind: kind.rawValue, name: name, secretHash: secretHash, sealedSecret: sealedSecret, prefix: prefix)
        row.clientID = client?.id
        row.clientSecretHash = client?.secretHash
        try await row.create(on: database)
        return try row.record()
    }

    func client(id: String, secretHash: String) async throws -> AppSignIn? {
        try await rows("a.client_id = \(bind: id) AND a.client_secret_hash = \(bind: secretHash)").first?.0
    }

    func apps(ownedBy user: AuthenticatedUser) async throws -> [AppRecord] {
        try await AppModel.query(ownedBy: user, on: database).sort(\.$createdAt, .descending).all().map { try $0.record() }
    }

    func revoke(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        try await database.transaction { database in
            guard let row = try await AppModel.find(id, ownedBy: user, on: database) else { return false }
            try await (database as! any SQLDatabase).raw("DELETE FROM app_sessions WHERE app_id = \(bind: id)").run()
            try await row.delete(on: database)
            return true
        }
    }

    func signIn(secretHash: String, kind: AppKind) async throws -> AppSignIn? {
        try await rows("a.secret_hash = \(bind: secretHash) AND a.kind = \(bind: kind.rawValue)").first?.0
    }

    func sealedSecrets(username: String, kind: AppKind) async throws -> [(AppSignIn, sealed: String)] {
        try await rows("u.username = \(bind: username.lowercased()) AND a.kind = \(bind: kind.rawValue)").map { ($0.0, sealed: $0.sealed) }
    }

    func recordUse(_ id: UUID, at time: Date, action: String?) async throws {
        let update = AppModel.query(on: database).filter(\.$id == id).set(\.$lastUsedAt, to: time)
        if let action { update.set(\.$lastAction, to: String(action.prefix(200))) }
        try await update.update()
    }

    func createSession(for app: AppRecord, purpose: AppSessionPurpose, secretHash: String, expiresAt: Date) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("""
            INSERT INTO app_sessions (id, owner_id, app_id, secret_hash, purpose, expires_at)
            VALUES (\(bind: UUID()), \(bind: app.ownerID), \(bind: app.id), \(bind: secretHash), \(bind: purpose.rawValue), \(bind: expiresAt))
            """).run()
        // A client that keeps no cookies starts one at every request: only its newest are kept.
        try await sql.raw("""
            DELETE FROM app_sessions WHERE app_id = \(bind: app.id) AND purpose = \(bind: purpose.rawValue) AND id NOT IN (
                SELECT id FROM app_sessions WHERE app_id = \(bind: app.id) AND purpose = \(bind: purpose.rawValue)
                ORDER BY expires_at DESC LIMIT \(unsafeRaw: String(Self.sessionsKept)))
            """).run()
    }

    /// Sessions kept per app (its devices, and a few more).
    static let sessionsKept = 20

    func session(secretHash: String, purpose: AppSessionPurpose, kind: AppKind, now: Date) async throws -> AppSignIn? {
        try await rows("""
            a.kind = \(bind: kind.rawValue) AND a.id IN (SELECT app_id FROM app_sessions WHERE secret_hash = \(bind: secretHash) \
            AND purpose = \(bind: purpose.rawValue) AND expires_at > \(bind: now))
            """).first?.0
    }

    func deleteSession(secretHash: String) async throws {
        try await (database as! any SQLDatabase).raw("DELETE FROM app_sessions WHERE secret_hash = \(bind: secretHash)").run()
    }

    func startLoginFlow(loginToken: String, pollHash: String, name: String, address: String, expiresAt: Date, now: Date,
                        perAddress: Int, limit: Int) async throws -> Bool {
        let sql = database as! any SQLDatabase
        try await sql.raw("DELETE FROM login_flows WHERE expires_at <= \(bind: now)").run()
        let waiting = try await sql.raw("SELECT count(*) AS n FROM login_flows").first()?.decode(column: "n", as: Int.self) ?? 0
        let fromThere = try await sql.raw("SELECT count(*) AS n FROM login_flows WHERE address = \(bind: address)").first()?
            .decode(column: "n", as: Int.self) ?? 0
        guard waiting < limit, fromThere < perAddress else { return false }
        try await sql.raw("""
            INSERT INTO login_flows (id, login_token, poll_hash, name, address, expires_at)
            VALUES (\(bind: UUID()), \(bind: loginToken), \(bind: pollHash), \(bind: name), \(bind: address), \(bind: expiresAt))
            """).run()
        return true
    }

    func waitingLoginFlow(loginToken: String, now: Date) async throws -> String? {
        try await (database as! any SQLDatabase).raw("""
            SELECT name FROM login_flows WHERE login_token = \(bind: loginToken) AND expires_at > \(bind: now) AND owner_id IS NULL
            """).first()?.decode(column: "name", as: String.self)
    }

    func approveLoginFlow(loginToken: String, ownerID: UUID, sealedSecret: String, now: Date) async throws -> Bool {
        let sql = database as! any SQLDatabase
        let done = try await sql.raw("""
            UPDATE login_flows SET owner_id = \(bind: ownerID), sealed_secret = \(bind: sealedSecret)
            WHERE login_token = \(bind: loginToken) AND expires_at > \(bind: now) AND owner_id IS NULL RETURNING id
            """).all()
        return !done.isEmpty
    }

    func collectLoginFlow(pollHash: String, now: Date) async throws -> (username: String, sealed: String)? {
        let sql = database as! any SQLDatabase
        let taken = try await sql.raw("""
            DELETE FROM login_flows WHERE poll_hash = \(bind: pollHash) AND expires_at > \(bind: now) AND owner_id IS NOT NULL
            RETURNING owner_id, sealed_secret
            """).first()
        guard let taken, let sealed = try taken.decode(column: "sealed_secret", as: String?.self) else { return nil }
        let owner = try taken.decode(column: "owner_id", as: UUID.self)
        guard let username = try await UserModel.find(owner, on: database)?.username else { return nil }
        return (username, sealed)
    }

    /// Apps and their people where `condition` holds (over `a`, the app, and `u`, its person).
    private func rows(_ condition: SQLQueryString) async throws -> [(AppSignIn, sealed: String)] {
        let sql = database as! any SQLDatabase
        let found = try await sql.raw("""
            SELECT a.id, a.owner_id, a.kind, a.name, a.prefix, a.created_at, a.last_used_at, a.last_action, a.sealed_secret,
                   u.id AS user_id, u.username, u.is_owner, u.must_change_password, u.created_at AS user_created_at, u.plan, u.plan_bypass
            FROM \(ident: AppModel.schema) a JOIN \(ident: UserModel.schema) u ON u.id = a.owner_id
            WHERE \(condition)
            """).all()
        return try found.compactMap { row in
            guard let kind = AppKind(rawValue: try row.decode(column: "kind", as: String.self)) else { return nil }
            let app = AppRecord(id: try row.decode(column: "id", as: UUID.self), ownerID: try row.decode(column: "owner_id", as: UUID.self),
                                kind: kind, name: try row.decode(column: "name", as: String.self),
                                prefix: try row.decode(column: "prefix", as: String.self),
                                createdAt: try row.decode(column: "created_at", as: Date?.self) ?? Date(timeIntervalSince1970: 0),
                                lastUsedAt: try row.decode(column: "last_used_at", as: Date?.self),
                                lastAction: try row.decode(column: "last_action", as: String?.self))
            let user = try SignIn(person: row, tokenID: app.id, kind: .app, expiresAt: nil, lastUsedAt: app.lastUsedAt)
            return (AppSignIn(app: app, user: user), sealed: try row.decode(column: "sealed_secret", as: String.self))
        }
    }
}

extension AppModel {
    func record() throws -> AppRecord {
        AppRecord(id: try requireID(), ownerID: $owner.id, kind: AppKind(rawValue: kind) ?? .gpodder, name: name, prefix: prefix,
                  createdAt: createdAt ?? Date(timeIntervalSince1970: 0), lastUsedAt: lastUsedAt, lastAction: lastAction)
    }
}
