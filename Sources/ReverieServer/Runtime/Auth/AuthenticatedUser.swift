import ReverieAPI
import Vapor

/// The user a request is acting for, and the credential that proved it.
public struct AuthenticatedUser: Authenticatable, Sendable, Equatable {
    public var id: UUID
    public var username: String
    public var isOwner: Bool
    /// The session or personal token the request came with.
    public var tokenID: UUID
    public var tokenKind: AuthTokenKind
    /// The account has a temporary password: only choosing a new one is allowed.
    public var mustChangePassword: Bool
    /// When the account was made.
    public var accountCreatedAt: Date
    /// What the owner granted.
    public var plan: Plan
    /// The account's "Bypass IAP (Dev)" switch (it counts only in development mode).
    public var planBypass: Bool

    public init(id: UUID, username: String, isOwner: Bool, tokenID: UUID, tokenKind: AuthTokenKind,
                mustChangePassword: Bool = false, accountCreatedAt: Date, plan: Plan = .free, planBypass: Bool = false) {
        self.id = id
        self.username = username
        self.isOwner = isOwner
        self.tokenID = tokenID
        self.tokenKind = tokenKind
        self.mustChangePassword = mustChangePassword
        self.accountCreatedAt = accountCreatedAt
        self.plan = plan
        self.planBypass = planBypass
    }

    /// What a person with a temporary password may still do: see who they are, choose a new
    /// password, sign out.
    static let allowedBeforePasswordChange: Set<String> = ["/api/auth/me", "/api/auth/password", "/api/auth/logout"]
}

extension Request {
    /// The signed-in user, or a 401 `unauthorized` error; 403 `password_change_required` while
    /// the account has a temporary password, except on the routes that change it.
    var user: AuthenticatedUser {
        get throws {
            guard let user = auth.get(AuthenticatedUser.self) else {
                throw APIError(.unauthorized, code: "unauthorized", "Sign in first: this needs a session or a personal token.")
            }
            if user.mustChangePassword && !AuthenticatedUser.allowedBeforePasswordChange.contains(url.path) {
                throw APIError(.forbidden, code: "password_change_required",
                               "Choose a new password first: this account has a temporary one from the owner.")
            }
            return user
        }
    }

    /// The signed-in user when they are the server's owner; else 403 `owner_only`, saying
    /// "Only the owner of this server <doing>."
    @discardableResult
    func owner(_ doing: String) throws -> AuthenticatedUser {
        let user = try self.user
        guard user.isOwner else { throw APIError(.forbidden, code: "owner_only", "Only the owner of this server \(doing).") }
        return user
    }
}
