import Fluent
import Foundation

/// A person with an account. The first one created is the owner.
public final class UserModel: Model, @unchecked Sendable {
    public static let schema = "users"

    @ID(key: .id) public var id: UUID?
    /// Unique, compared case-insensitively: stored lowercased.
    @Field(key: "username") public var username: String
    /// bcrypt hash of the password; the password itself is never stored.
    @Field(key: "password_hash") public var passwordHash: String
    @Field(key: "is_owner") public var isOwner: Bool
    /// Set by a temporary password from the owner: until the person chooses their own, their
    /// session can do nothing else.
    @Field(key: "must_change_password") public var mustChangePassword: Bool
    /// `free` or `plus`: the owner grants Plus (nobody pays on a self-hosted server).
    @Field(key: "plan") public var plan: String
    /// "Bypass IAP (Dev)": unlocks everything for this account while the server runs in
    /// development mode; ignored otherwise.
    @Field(key: "plan_bypass") public var planBypass: Bool
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    public init(id: UUID? = nil, username: String, passwordHash: String, isOwner: Bool) {
        self.id = id
        self.username = username
        self.passwordHash = passwordHash
        self.isOwner = isOwner
        self.mustChangePassword = false
        self.plan = "free"
        self.planBypass = false
    }
}
