import Fluent
import ReverieAPI
import SQLKit
import Vapor

/// Sessions and personal tokens as stored, answered as `AuthTokenRecord` values.
public protocol AuthTokenRepository: Sendable {
    /// Writes a token that signs in the account with `userID` and answers it as written (never
    /// used yet); `secretHash` is the hex SHA-256 of its secret.
    func create(for userID: UUID, kind: AuthTokenKind, name: String, secretHash: String,
                prefix: String, expiresAt: Date?) async throws -> AuthTokenRecord
    /// The token with this secret hash and its user, whoever owns it (this is how requests sign in).
    func find(secretHash: String) async throws -> SignIn?
    func recordUse(_ id: UUID, at time: Date, newExpiry: Date?) async throws
    /// Deletes a token by id (logout, expiry).
    func delete(_ id: UUID) async throws
    /// The user's personal tokens, newest first.
    func personalTokens(ownedBy user: AuthenticatedUser) async throws -> [AuthTokenRecord]
    /// Revokes one of the user's personal tokens; `false` when the user has no such token.
    func revokePersonalToken(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// A session or personal token as a request signs in with it, and whose it is.
public struct SignIn: Sendable, Equatable {
    public var tokenID: UUID
    public var kind: AuthTokenKind
    public var expiresAt: Date?
    public var lastUsedAt: Date?
    public var userID: UUID
    public var username: String
    public var isOwner: Bool
    public var mustChangePassword: Bool
    /// When the account was made (`GET /api/auth/me` gives it).
    public var accountCreatedAt: Date
    /// `free` or `plus`, as the owner granted.
    public var plan: Plan = .free
    /// The account's development bypass switch.
    public var planBypass = false
}

extension SignIn {
    /// A sign-in read from a row that joins the person (`user_id`, `username`, `is_owner`,
    /// `must_change_password`, `user_created_at`, `plan`, `plan_bypass`) to what proves it.
    init(person row: any SQLRow, tokenID: UUID, kind: AuthTokenKind, expiresAt: Date?, lastUsedAt: Date?) throws {
        self.init(tokenID: tokenID, kind: kind, expiresAt: expiresAt, lastUsedAt: lastUsedAt,
                  userID: try row.decode(column: "user_id", as: UUID.self),
                  username: try row.decode(column: "username", as: String.self),
                  isOwner: try row.decode(column: "is_owner", as: Bool.self),
                  mustChangePassword: try row.decode(column: "must_change_password", as: Bool.self),
                  accountCreatedAt: try row.decode(column: "user_created_at", as: Date?.self) ?? Date(timeIntervalSince1970: 0),
                  plan: Plan(rawValue: try row.decode(column: "plan", as: String.self)) ?? .free,
                  planBypass: try row.decode(column: "plan_bypass", as: Bool.self))
    }
}

/// `AuthTokenRepository` on Fluent.
struct FluentAuthTokenRepository: AuthTokenRepository {
    let database: any Database
    /// Forgotten after every write here, so a revoked token signs nothing in.
    var signIns: Recent<String, SignIn>?

    func create(for userID: UUID, kind: AuthTokenKind, name: String, secretHash: String,
                prefix: String, expiresAt: Date?) async throws -> AuthTokenRecord {
        let token = AuthTokenModel(ownerID: userID, kind: kind, name: name, secretHash: secretHash, prefix: prefix, expiresAt: expiresAt)
        try await token.create(on: database)
        signIns?.forgetAll()
        return try token.record()
    }

    func find(secretHash: String) async throws -> SignIn? {
        // Every signed-in request makes this query: one statement, the token and its owner
        // joined, read into a plain value (building Fluent models reflects over their fields
        // each time, most of the cost of a signed-in request).
        let sql = database as! any SQLDatabase
        guard let row = try await sql.raw("""
            SELECT t.id, t.kind, t.expires_at, t.last_used_at, u.id AS user_id, u.username, u.is_owner, u.must_change_password,
                   u.created_at AS user_created_at, u.plan, u.plan_bypass
            FROM \(ident: AuthTokenModel.schema) t JOIN \(ident: UserModel.schema) u ON u.id = t.owner_id
            WHERE t.secret_hash = \(bind: secretHash)
            """).first()
        else { return nil }
        guard let kind = AuthTokenKind(rawValue: try row.decode(column: "kind", as: String.self)) else { return nil }
        return try SignIn(person: row, tokenID: try row.decode(column: "id", as: UUID.self), kind: kind,
                          expiresAt: try row.decode(column: "expires_at", as: Date?.self),
                          lastUsedAt: try row.decode(column: "last_used_at", as: Date?.self))
    }

    func recordUse(_ id: UUID, at time: Date, newExpiry: Date?) async throws {
        let update = AuthTokenModel.query(on: database).filter(\.$id == id).set(\.$lastUsedAt, to: time)
        if let newExpiry { update.set(\.$expiresAt, to: newExpiry) }
        try await update.update()
        signIns?.forgetAll()
    }

    func delete(_ id: UUID) async throws {
        try await AuthTokenModel.query(on: database).filter(\.$id == id).delete()
        signIns?.forgetAll()
    }

    func personalTokens(ownedBy user: AuthenticatedUser) async throws -> [AuthTokenRecord] {
        try await AuthTokenModel.query(ownedBy: user, on: database)
            .filter(\.$kind == .personal).sort(\.$createdAt, .descending).all().map { try $0.record() }
    }

    func revokePersonalToken(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let token = try await AuthTokenModel.find(id, ownedBy: user, on: database), token.kind == .personal else {
            return false
        }
        try await token.delete(on: database)
        signIns?.forgetAll()
        return true
    }
}

extension AuthTokenModel {
    /// The row as a value (without its secret hash); throws only for a row never saved (no id).
    func record() throws -> AuthTokenRecord {
        AuthTokenRecord(id: try requireID(), ownerID: $owner.id, kind: kind, name: name, prefix: prefix,
                        createdAt: createdAt, lastUsedAt: lastUsedAt, expiresAt: expiresAt)
    }
}
