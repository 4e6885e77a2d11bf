import ReverieAPI
import Vapor

/// First-run setup, login, logout and "who am I".
struct AuthController: RouteCollection {
    let users: Store<any UserRepository>
    let tokens: Store<any AuthTokenRepository>
    let hashing: PasswordHashing
    let throttle: LoginThrottle
    /// How long a session lasts from its last use.
    let sessionLifetime: TimeInterval
    let secureCookies: ServerConfig.SecureCookies
    /// The production front, whose `X-Forwarded-For` gives the client's address.
    var front = FrontSettings()
    let now: @Sendable () -> Date

    /// Accounts on the request's database.
    private func accounts(_ req: Request) -> AccountService {
        AccountService(users: users.on(req), hasher: hashing)
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "setup", use: setupStatus)
        routes.post("api", "setup", use: setup)
        routes.post("api", "auth", "login", use: login)
        routes.post("api", "auth", "logout", use: logout)
        routes.get("api", "auth", "me", use: me)
        routes.post("api", "auth", "password", use: changePassword)
    }

    func setupStatus(req: Request) async throws -> SetupStatus {
        SetupStatus(needsSetup: try await users.on(req).count() == 0)
    }

    /// Creates the owner on a fresh server and signs them in. Refused once any account exists.
    func setup(req: Request) async throws -> Response {
        let credentials = try req.content.decode(Credentials.self)
        guard try await users.on(req).count() == 0 else {
            throw APIError(.conflict, code: "already_set_up", "This server already has an owner; sign in instead.")
        }
        let user: UserRecord
        do {
            user = try await accounts(req).createUser(username: credentials.username, password: credentials.password, owner: true)
        } catch AccountError.usernameTaken {
            // Two setup requests raced; the other one made the owner.
            throw APIError(.conflict, code: "already_set_up", "This server already has an owner; sign in instead.")
        }
        return try await startSession(for: user, req: req, status: .created)
    }

    func login(req: Request) async throws -> Response {
        let credentials = try req.content.decode(Credentials.self)
        let address = try await checkThrottle(username: credentials.username, req: req)
        guard let user = try await accounts(req).verify(username: credentials.username, password: credentials.password) else {
            await throttle.recordFailure(username: credentials.username, address: address)
            throw APIError(.unauthorized, code: "invalid_credentials", "That username and password do not match an account.")
        }
        await throttle.recordSuccess(username: credentials.username)
        return try await startSession(for: user, req: req, status: .ok)
    }

    /// Ends the session the request came with (a personal token stays valid: revoke it instead).
    func logout(req: Request) async throws -> Response {
        let user = try req.user
        if user.tokenKind == .session {
            try await tokens.on(req).delete(user.tokenID)
        }
        let response = Response(status: .noContent)
        response.cookies[SessionAuthenticator.cookieName] = HTTPCookies.Value(
            string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0, path: "/",
            isSecure: secureCookie(req), isHTTPOnly: true, sameSite: .strict)
        return response
    }

    /// On the event loop: the signed-in account as the sign-in read it (every screen asks).
    @Sendable
    func me(req: Request) throws -> SessionInfo {
        let user = try req.user
        return SessionInfo(user: UserInfo(id: user.id, username: user.username, isOwner: user.isOwner, createdAt: user.accountCreatedAt,
                                          mustChangePassword: user.mustChangePassword, plan: user.plan))
    }

    /// Changes the signed-in person's password: other sessions and tokens are signed out, this
    /// one stays. Wrong current passwords count toward the sign-in throttle.
    func changePassword(req: Request) async throws -> SessionInfo {
        let user = try req.user
        let change = try req.content.decode(PasswordChange.self)
        let address = try await checkThrottle(username: user.username, req: req)
        do {
            let account = try await accounts(req).changePassword(of: user.id, current: change.currentPassword,
                                                              new: change.newPassword, keeping: user.tokenID)
            await throttle.recordSuccess(username: user.username)
            return SessionInfo(user: account.info())
        } catch AccountError.wrongPassword {
            await throttle.recordFailure(username: user.username, address: address)
            throw AccountError.wrongPassword
        }
    }

    /// 429 while the sign-in throttle holds this username or the request's address back; else
    /// the address, for recording the attempt's outcome.
    private func checkThrottle(username: String, req: Request) async throws -> String {
        let address = front.clientAddress(of: req)
        do {
            try await throttle.check(username: username, address: address)
        } catch let lockout as LoginThrottle.Lockout {
            throw APIError.tooManyAttempts(lockout)
        }
        return address
    }

    // MARK: - Sessions

    private func startSession(for user: UserRecord, req: Request, status: HTTPResponseStatus) async throws -> Response {
        let secret = TokenSecret.generate()
        let lifetime = sessionLifetime
        let agent = String((req.headers.first(name: .userAgent) ?? "browser").prefix(200))
        _ = try await tokens.on(req).create(
            for: user.id, kind: .session, name: agent, secretHash: TokenSecret.hash(secret),
            prefix: TokenSecret.prefix(of: secret), expiresAt: now().addingTimeInterval(lifetime))
        let response = Response(status: status)
        try response.content.encode(SessionInfo(user: user.info()))
        response.cookies[SessionAuthenticator.cookieName] = HTTPCookies.Value(
            string: secret, maxAge: Int(lifetime), path: "/",
            isSecure: secureCookie(req), isHTTPOnly: true, sameSite: .strict)
        return response
    }

    /// Whether the cookie gets `Secure`: see `ServerConfig.SecureCookies`.
    private func secureCookie(_ req: Request) -> Bool {
        switch secureCookies {
        case .always: return true
        case .never: return false
        case .auto:
            if req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https" { return true }
            if req.url.scheme == "https" { return true }
            let host = (req.headers.first(name: .host) ?? "").lowercased()
            let name = host.hasPrefix("[") ? String(host.prefix { $0 != "]" }.dropFirst()) : String(host.split(separator: ":").first ?? "")
            return name == "localhost" || name == "::1" || name.hasPrefix("127.")
        }
    }
}
