import Vapor

/// Signs a request in from its session cookie or its `Authorization: Bearer` personal token.
///
/// Unknown, expired or revoked credentials leave the request anonymous; routes that need a user
/// then answer 401. Use is recorded at most once a minute per token, and a session that is used
/// slides its expiry forward.
struct SessionAuthenticator: AsyncMiddleware {
    static let cookieName = "reverie_session"

    let sessionLifetime: TimeInterval
    let now: @Sendable () -> Date

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let user = try await authenticate(request) {
            request.auth.login(user)
        }
        return try await next.respond(to: request)
    }

    private func authenticate(_ request: Request) async throws -> AuthenticatedUser? {
        let secret: String
        let kind: AuthTokenModel.Kind
        if let bearer = request.headers.bearerAuthorization?.token {
            (secret, kind) = (bearer, .personal)
        } else if let cookie = request.cookies[Self.cookieName]?.string, !cookie.isEmpty {
            (secret, kind) = (cookie, .session)
        } else {
            return nil
        }

        let tokens = request.repositories.tokens
        guard let token = try await tokens.find(secretHash: TokenSecret.hash(secret)), token.kind == kind else { return nil }
        let tokenID = token.tokenID

        let time = now()
        if let expiry = token.expiresAt, expiry <= time {
            try await tokens.delete(tokenID)
            return nil
        }
        if (token.lastUsedAt.map { time.timeIntervalSince($0) > 60 } ?? true) {
            let expiry = kind == .session ? time.addingTimeInterval(sessionLifetime) : nil
            try await tokens.recordUse(tokenID, at: time, newExpiry: expiry)
        }
        return AuthenticatedUser(id: token.userID, username: token.username, isOwner: token.isOwner, tokenID: tokenID, tokenKind: kind,
                                 mustChangePassword: token.mustChangePassword)
    }
}
