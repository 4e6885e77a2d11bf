import Fluent
import Vapor

/// Sessions and personal tokens as stored.
public protocol AuthTokenRepository: Sendable {
    func create(for userID: UUID, kind: AuthTokenModel.Kind, name: String, secretHash: String,
                prefix: String, expiresAt: Date?) async throws -> AuthTokenModel
    /// The token with this secret hash and its user, whoever owns it (this is how requests sign in).
    func find(secretHash: String) async throws -> (AuthTokenModel, UserModel)?
    func recordUse(_ id: UUID, at time: Date, newExpiry: Date?) async throws
    /// Deletes a token by id (logout, expiry).
    func delete(_ id: UUID) async throws
    /// The user's personal tokens, newest first.
    func personalTokens(ownedBy user: AuthenticatedUser) async throws -> [AuthTokenModel]
    /// Revokes one of the user's personal tokens; `false` when the user has no such token.
    func revokePersonalToken(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// `AuthTokenRepository` on Fluent.
struct FluentAuthTokenRepository: AuthTokenRepository {
    let database: any Database

    func create(for userID: UUID, kind: AuthTokenModel.Kind, name: String, secretHash: String,
                prefix: String, expiresAt: Date?) async throws -> AuthTokenModel {
        let token = AuthTokenModel(ownerID: userID, kind: kind, name: name, secretHash: secretHash, prefix: prefix, expiresAt: expiresAt)
        try await token.create(on: database)
        return token
    }

    func find(secretHash: String) async throws -> (AuthTokenModel, UserModel)? {
        // One query: the token and its owner joined (every signed-in request makes it).
        guard let token = try await AuthTokenModel.query(on: database)
            .join(UserModel.self, on: \AuthTokenModel.$owner.$id == \UserModel.$id)
            .filter(\.$secretHash == secretHash).first()
        else { return nil }
        return (token, try token.joined(UserModel.self))
    }

    func recordUse(_ id: UUID, at time: Date, newExpiry: Date?) async throws {
        let update = AuthTokenModel.query(on: database).filter(\.$id == id).set(\.$lastUsedAt, to: time)
        if let newExpiry { update.set(\.$expiresAt, to: newExpiry) }
        try await update.update()
    }

    func delete(_ id: UUID) async throws {
        try await AuthTokenModel.query(on: database).filter(\.$id == id).delete()
    }

    func personalTokens(ownedBy user: AuthenticatedUser) async throws -> [AuthTokenModel] {
        try await AuthTokenModel.query(ownedBy: user, on: database)
            .filter(\.$kind == .personal).sort(\.$createdAt, .descending).all()
    }

    func revokePersonalToken(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let token = try await AuthTokenModel.find(id, ownedBy: user, on: database), token.kind == .personal else {
            return false
        }
        try await token.delete(on: database)
        return true
    }
}
