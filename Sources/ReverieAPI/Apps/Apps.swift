import Foundation

/// Which protocol a connected app speaks; its app password works for that protocol only.
public enum AppKind: String, Codable, Sendable, CaseIterable {
    /// Podcast apps: the gpodder.net API v2 (AntennaPod, Kasts, gPodder).
    case gpodder
    /// Music, book and podcast apps speaking the Subsonic API.
    case subsonic
    /// wallabag's apps and browser extensions.
    case wallabag
}

/// `POST /api/apps` body.
public struct AppCreateRequest: Codable, Sendable, Equatable {
    /// `gpodder`, `subsonic` or `wallabag`.
    public var kind: String
    /// What the person calls it ("AntennaPod on my phone").
    public var name: String
    public init(kind: String, name: String) {
        self.kind = kind
        self.name = name
    }
}

/// A connected app as listed: never its password.
public struct AppInfo: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    public var kind: AppKind
    public var name: String
    /// The first characters of its password, to tell apps apart.
    public var prefix: String
    public var createdAt: Date
    /// When it last signed in; `nil` when never.
    public var lastUsedAt: Date?
    /// What it last did ("uploaded 3 episode actions"); `nil` before anything.
    public var lastAction: String?

    public init(id: UUID, kind: AppKind, name: String, prefix: String, createdAt: Date, lastUsedAt: Date?, lastAction: String?) {
        self.id = id
        self.kind = kind
        self.name = name
        self.prefix = prefix
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.lastAction = lastAction
    }
}

/// `POST /api/apps` answer: what the person types into the app, the password this once.
public struct CreatedApp: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    /// The app password, shown this once.
    public var secret: String
    public var app: AppInfo
    /// The user name to give the app (the person's own).
    public var username: String
    /// The server address to give the app, as this request reached the server.
    public var server: String
    /// An SVG QR code of `server`, for typing it on a phone; nil when the server cannot draw one.
    public var qr: String?
    /// For a wallabag app: the OAuth client it signs in as (its secret shown this once).
    public var clientId: String?
    public var clientSecret: String?

    public init(id: UUID, secret: String, app: AppInfo, username: String, server: String, qr: String?,
                clientId: String? = nil, clientSecret: String? = nil) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.id = id
        self.secret = secret
        self.app = app
        self.username = username
        self.server = server
        self.qr = qr
    }
}
