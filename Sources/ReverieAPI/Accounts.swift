import Foundation

/// `GET /api/setup`: whether this server still needs its owner account.
public struct SetupStatus: Codable, Sendable, Equatable {
    /// `true` until the first account exists.
    public var needsSetup: Bool
    public init(needsSetup: Bool) { self.needsSetup = needsSetup }
}

/// Username and password, as sent to `POST /api/setup`, `POST /api/auth/login` and `POST /api/users`.
public struct Credentials: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// A person with an account on this server.
public struct UserInfo: Codable, Sendable, Equatable {
    public var id: UUID
    public var username: String
    /// The owner created the server and manages the other accounts.
    public var isOwner: Bool
    public var createdAt: Date
    /// `true` after the owner set a temporary password: the person chooses a new one before
    /// anything else (`POST /api/auth/password`).
    public var mustChangePassword: Bool

    public init(id: UUID, username: String, isOwner: Bool, createdAt: Date, mustChangePassword: Bool = false) {
        self.id = id
        self.username = username
        self.isOwner = isOwner
        self.createdAt = createdAt
        self.mustChangePassword = mustChangePassword
    }
}

/// `POST /api/auth/password`: change your own password.
public struct PasswordChange: Codable, Sendable, Equatable {
    public var currentPassword: String
    public var newPassword: String
    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// `PUT /api/users/{userID}/password`: the owner gives someone a temporary password.
public struct TemporaryPassword: Codable, Sendable, Equatable {
    public var password: String
    public init(password: String) { self.password = password }
}

/// The answer to a successful setup or login, and to `GET /api/auth/me`.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var user: UserInfo
    public init(user: UserInfo) { self.user = user }
}

/// `POST /api/tokens`: a name to recognise the token by later.
public struct TokenCreateRequest: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// A personal access token as listed; the secret itself is never shown again after creation.
public struct TokenInfo: Codable, Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// The first characters of the secret, to tell tokens apart.
    public var prefix: String
    public var createdAt: Date
    /// When a request last used it; `nil` when never.
    public var lastUsedAt: Date?

    public init(id: UUID, name: String, prefix: String, createdAt: Date, lastUsedAt: Date?) {
        self.id = id
        self.name = name
        self.prefix = prefix
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// `POST /api/tokens` answer: the token and, this once, its secret for `Authorization: Bearer`.
public struct CreatedToken: Codable, Sendable, Equatable {
    public var token: TokenInfo
    public var secret: String
    public init(token: TokenInfo, secret: String) {
        self.token = token
        self.secret = secret
    }
}

/// A user's settings. Every field is optional in an update; absent fields are left as they are.
public struct UserSettings: Codable, Sendable, Equatable {
    public var theme: Theme?
    public init(theme: Theme? = nil) { self.theme = theme }
}
