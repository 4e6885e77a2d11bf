import NIOCore
import Vapor

/// Signs a request in from its session cookie or its `Authorization: Bearer` personal token.
///
/// Unknown, expired or revoked credentials leave the request anonymous; routes that need a user
/// then answer 401. Use is recorded at most once a minute per token, and a session that is used
/// slides its expiry forward.
///
/// A token read in the last `recheckAfter` is taken from `signIns` on the event loop, with no
/// query and no thread hop (every signed-in request comes here, a player's many range requests
/// too). Writes through this server's token and user repositories empty `signIns`, so signing
/// out, revoking a token, a new password or a removed account take effect at once; the same
/// made by the command line, another process, take effect within `recheckAfter`.
struct SessionAuthenticator: Middleware {
    let tokens: Store<any AuthTokenRepository>
    static let cookieName = "reverie_session"
    /// How long a token read from the database is trusted without reading it again.
    static let recheckAfter: TimeAmount = .seconds(1)
    /// Use is recorded (and a session's expiry slid forward) at most this often per token.
    static let recordUseEvery: TimeInterval = 60

    let sessionLifetime: TimeInterval
    let signIns: Recent<String, SignIn>
    let now: @Sendable () -> Date

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        guard let (secret, kind) = Self.credential(of: request) else { return next.respond(to: request) }
        let hash = TokenSecret.hash(secret)
        if let token = signIns.value(for: hash), !needsWriting(token, at: now()) {
            if token.kind == kind { request.auth.login(Self.user(token)) }
            return next.respond(to: request)
        }
        return request.eventLoop.makeFutureWithTask {
            try await authenticate(request, hash: hash, kind: kind)
        }.flatMap { user in
            if let user { request.auth.login(user) }
            return next.respond(to: request)
        }
    }

    private static func credential(of request: Request) -> (secret: String, kind: AuthTokenKind)? {
        if let bearer = request.headers.bearerAuthorization?.token {
            return (bearer, .personal)
        }
        if let cookie = request.cookies[cookieName]?.string, !cookie.isEmpty {
            return (cookie, .session)
        }
        return nil
    }

    /// Expired (to be deleted), or its use due to be recorded.
    private func needsWriting(_ token: SignIn, at time: Date) -> Bool {
        if let expiry = token.expiresAt, expiry <= time { return true }
        return token.lastUsedAt.map { time.timeIntervalSince($0) > Self.recordUseEvery } ?? true
    }

    private func authenticate(_ request: Request, hash: String, kind: AuthTokenKind) async throws -> AuthenticatedUser? {
        let tokens = tokens.on(request)
        let generation = signIns.generation
        guard let token = try await tokens.find(secretHash: hash) else { return nil }
        let time = now()
        if let expiry = token.expiresAt, expiry <= time {
            try await tokens.delete(token.tokenID)
            return nil
        }
        if needsWriting(token, at: time) {
            let expiry = token.kind == .session ? time.addingTimeInterval(sessionLifetime) : nil
            // The write empties `signIns`; the next request reads the token as written.
            try await tokens.recordUse(token.tokenID, at: time, newExpiry: expiry)
        } else {
            signIns.store(token, for: hash, readAt: generation)
        }
        return token.kind == kind ? Self.user(token) : nil
    }

    private static func user(_ token: SignIn) -> AuthenticatedUser {
        AuthenticatedUser(id: token.userID, username: token.username, isOwner: token.isOwner, tokenID: token.tokenID,
                          tokenKind: token.kind, mustChangePassword: token.mustChangePassword, accountCreatedAt: token.accountCreatedAt,
                          plan: token.plan, planBypass: token.planBypass)
    }
}
