import Foundation
import ReverieAPI
import Vapor

/// How an app's request is signed in: HTTP Basic with the person's user name and an app password
/// of the protocol's kind (never the account password), or a session cookie the app got by
/// signing in that way. Nothing is kept in memory, so revoking an app stops it on every server at
/// its next request. Wrong passwords count toward the sign-in throttle, as the account's do.
struct AppGate: Sendable {
    let apps: Store<any AppRepository>
    let throttle: LoginThrottle
    let front: FrontSettings
    /// Whether the session cookie says `Secure`.
    let secureCookies: ServerConfig.SecureCookies
    let now: @Sendable () -> Date
    /// gpodder.net's cookie name, which its clients keep.
    static let sessionCookie = "sessionid"
    static let sessionLifetime: TimeInterval = 30 * 24 * 3600

    /// The app and person a request of `kind` comes from; 401 with a Basic challenge (which
    /// clients built on urllib wait for before they send the password) when it has no right.
    /// - Parameter username: the user the address names (`/api/2/…/{username}…`), which must be
    ///   the app's person.
    func signIn(_ req: Request, kind: AppKind, username: String?) async throws -> AppSignIn {
        let store = apps.on(req)
        var signIn: AppSignIn?
        if let basic = req.headers.basicAuthorization {
            guard let found = try await passwordSignIn(username: basic.username, password: basic.password, kind: kind, req: req) else {
                throw Self.challenge("That user name and app password do not match. Make an app password in Reverie's Settings → Apps.")
            }
            signIn = found
            // As gpodder.net does: a password sign-in starts a session, whose cookie clients
            // built on urllib send from then on (they give the password only a few times).
            if try await sessionOf(req, kind: kind, store) == nil {
                req.storage[StartedSession.self] = try await startSession(for: found, req: req)
            }
        } else {
            signIn = try await sessionOf(req, kind: kind, store)
        }
        guard let signIn else {
            throw Self.challenge("Sign in with your user name and an app password from Reverie's Settings → Apps.")
        }
        if let username, username.lowercased() != signIn.user.username {
            throw APIError(.unauthorized, code: "wrong_user", "This app password is \(signIn.user.username)'s, not \(username)'s.")
        }
        if signIn.user.mustChangePassword {
            throw APIError(.forbidden, code: "password_change_required", "Choose a new password in Reverie first: this account has a temporary one.")
        }
        return signIn
    }

    /// The app of `kind` that this user name and app password sign in; nil when they do not
    /// match. Counted by the sign-in throttle (429 while it holds the name or address back).
    func passwordSignIn(username: String, password: String, kind: AppKind, req: Request) async throws -> AppSignIn? {
        let address = front.clientAddress(of: req)
        do {
            try await throttle.check(username: "app:" + username, address: address)
        } catch let lockout as LoginThrottle.Lockout {
            throw APIError.tooManyAttempts(lockout)
        }
        guard let found = try await apps.on(req).signIn(secretHash: TokenSecret.hash(password), kind: kind),
              found.user.username == username.lowercased() else {
            await throttle.recordFailure(username: "app:" + username, address: address)
            return nil
        }
        await throttle.recordSuccess(username: "app:" + username)
        return found
    }

    private func sessionOf(_ req: Request, kind: AppKind, _ store: any AppRepository) async throws -> AppSignIn? {
        guard let cookie = req.cookies[Self.sessionCookie]?.string, !cookie.isEmpty else { return nil }
        return try await store.session(secretHash: TokenSecret.hash(cookie), purpose: .cookie, kind: kind, now: now())
    }

    /// A session started while signing a request in, for `SessionCookies` to set.
    struct StartedSession: StorageKey {
        typealias Value = HTTPCookies.Value
    }

    /// Sets the cookie of a session started while answering (on the app protocols' routes).
    struct SessionCookies: AsyncMiddleware {
        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            let response = try await next.respond(to: request)
            if let cookie = request.storage[StartedSession.self], response.cookies[AppGate.sessionCookie] == nil {
                response.cookies[AppGate.sessionCookie] = cookie
            }
            return response
        }
    }

    /// Starts a session for the app: the cookie to set.
    func startSession(for signIn: AppSignIn, req: Request) async throws -> HTTPCookies.Value {
        let secret = TokenSecret.generate()
        try await apps.on(req).createSession(for: signIn.app, purpose: .cookie, secretHash: TokenSecret.hash(secret),
                                             expiresAt: now().addingTimeInterval(Self.sessionLifetime))
        return HTTPCookies.Value(string: secret, maxAge: Int(Self.sessionLifetime), path: "/",
                                 isSecure: secure(req), isHTTPOnly: true, sameSite: .lax)
    }

    /// `Secure` when the request came over HTTPS (or the server is told always): unlike a
    /// browser, an app keeps no `Secure` cookie for plain `http://127.0.0.1`.
    private func secure(_ req: Request) -> Bool {
        switch secureCookies {
        case .always: true
        case .never: false
        case .auto: req.cameOverTLS || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
        }
    }

    func endSession(_ req: Request) async throws {
        guard let cookie = req.cookies[Self.sessionCookie]?.string, !cookie.isEmpty else { return }
        try await apps.on(req).deleteSession(secretHash: TokenSecret.hash(cookie))
    }

    /// Notes what the app did, for Settings → Apps.
    func record(_ signIn: AppSignIn, _ req: Request, action: String?) async {
        try? await apps.on(req).recordUse(signIn.app.id, at: now(), action: action)
    }

    static func challenge(_ message: String) -> APIError {
        APIError(.unauthorized, code: "unauthorized", message, headers: ["WWW-Authenticate": "Basic realm=\"Reverie\", charset=\"UTF-8\""])
    }
}

extension AppSignIn {
    /// The person, as the rest of the server knows a signed-in request.
    var authenticated: AuthenticatedUser {
        AuthenticatedUser(id: user.userID, username: user.username, isOwner: user.isOwner, tokenID: app.id, tokenKind: .app,
                          mustChangePassword: user.mustChangePassword, accountCreatedAt: user.accountCreatedAt, plan: user.plan,
                          planBypass: user.planBypass)
    }
}
