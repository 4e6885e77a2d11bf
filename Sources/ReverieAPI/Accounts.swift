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
    /// Free or Plus, as the owner granted.
    public var plan: Plan

    public init(id: UUID, username: String, isOwner: Bool, createdAt: Date, mustChangePassword: Bool = false, plan: Plan = .free) {
        self.id = id
        self.username = username
        self.isOwner = isOwner
        self.createdAt = createdAt
        self.mustChangePassword = mustChangePassword
        self.plan = plan
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
    /// The icon for new installs (the manifest's and the favicon).
    public var icon: AppIcon?
    /// Bedside's settings; in a PATCH, only the fields present change.
    public var bedside: BedsideSettings?
    public init(theme: Theme? = nil, icon: AppIcon? = nil, bedside: BedsideSettings? = nil) {
        self.theme = theme
        self.icon = icon
        self.bedside = bedside
    }
}

/// The night-stand screen's settings, kept for the person (the seed's UserDefaults keys). Every
/// field is optional so a PATCH can carry one; the server's answers fill them all in.
public struct BedsideSettings: Codable, Sendable, Equatable {
    /// `off`, `meditation` or `poetry`: what the Leaf/Masks button is doing.
    public var contentMode: String?
    /// `meditation` or `poetry`: the last mode that played.
    public var lastContentMode: String?
    /// A voice id (`GET /api/speech/voices`) for meditations and poems alike; nil for the server's default.
    public var voice: String?
    /// Speech speed, 0.8 to 1.2.
    public var rate: Double?
    /// Captions under the clock while a piece plays (on by default).
    public var captions: Bool?
    /// The room's sound, 0 to 1.
    public var roomVolume: Double?
    /// `rain`, `ocean`, `forest`, `brown` or `silence`.
    public var room: String?
    /// A 24-hour clock; nil follows the device's locale.
    public var clock24: Bool?
    /// A meditation or poem played to its end since the alarm was set: the wake greeting is spoken.
    public var contentCompletedSuccessfully: Bool?
    public var alarm: BedsideAlarm?

    public init(contentMode: String? = nil, lastContentMode: String? = nil, voice: String? = nil, rate: Double? = nil,
                captions: Bool? = nil, roomVolume: Double? = nil, room: String? = nil, clock24: Bool? = nil,
                contentCompletedSuccessfully: Bool? = nil, alarm: BedsideAlarm? = nil) {
        self.contentMode = contentMode
        self.lastContentMode = lastContentMode
        self.voice = voice
        self.rate = rate
        self.captions = captions
        self.roomVolume = roomVolume
        self.room = room
        self.clock24 = clock24
        self.contentCompletedSuccessfully = contentCompletedSuccessfully
        self.alarm = alarm
    }
}

/// The Bedside alarm: a time of day, on or off, and the weekdays it repeats on (0 = Sunday; none: once).
public struct BedsideAlarm: Codable, Sendable, Equatable {
    /// `HH:MM`, 24-hour.
    public var time: String
    public var enabled: Bool
    public var days: [Int]

    public init(time: String, enabled: Bool, days: [Int]) {
        self.time = time
        self.enabled = enabled
        self.days = days
    }
}
