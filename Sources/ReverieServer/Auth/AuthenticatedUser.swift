import Vapor

/// The user a request is acting for, and the credential that proved it.
public struct AuthenticatedUser: Authenticatable, Sendable, Equatable {
    public var id: UUID
    public var username: String
    public var isOwner: Bool
    /// The session or personal token the request came with.
    public var tokenID: UUID
    public var tokenKind: AuthTokenModel.Kind

    public init(id: UUID, username: String, isOwner: Bool, tokenID: UUID, tokenKind: AuthTokenModel.Kind) {
        self.id = id
        self.username = username
        self.isOwner = isOwner
        self.tokenID = tokenID
        self.tokenKind = tokenKind
    }
}

extension Request {
    /// The signed-in user, or a 401 `unauthorized` error.
    var user: AuthenticatedUser {
        get throws {
            guard let user = auth.get(AuthenticatedUser.self) else {
                throw APIError(.unauthorized, code: "unauthorized", "Sign in first: this needs a session or a personal token.")
            }
            return user
        }
    }
}
