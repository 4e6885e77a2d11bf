import Foundation

/// A personal access token as listed; the secret itself is never shown again after creation.
public struct TokenInfo: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
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
