import Foundation

/// An account as the users table holds it: what `UserRepository` answers, a value that knows
/// nothing of the database (see `UserModel` for the row it is read from).
public struct UserRecord: Sendable, Equatable {
    public var id: UUID
    /// Stored lowercased: usernames compare case-insensitively.
    public var username: String
    /// bcrypt hash of the password (what signing in checks against).
    public var passwordHash: String
    public var isOwner: Bool
    /// A temporary password from the owner: the person must choose their own before anything else.
    public var mustChangePassword: Bool
    /// `free` or `plus`, as the owner granted; kept as text, as stored.
    public var plan: String
    /// The account's "Bypass IAP (Dev)" switch (it counts only in development mode).
    public var planBypass: Bool
    /// When the account was made; nil only for a row written without Fluent's timestamp.
    public var createdAt: Date?
}
