import Foundation

/// A person with an account on this server.
public struct UserInfo: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
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
