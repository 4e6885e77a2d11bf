import Fluent
import Foundation

/// A secret that authenticates requests: a browser session (cookie) or a personal token (bearer).
///
/// Only the SHA-256 of the secret is stored, so a copy of the database does not let anyone in.
public final class AuthTokenModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "auth_tokens"
    public static let ownerID: KeyPath<AuthTokenModel, FieldProperty<AuthTokenModel, UUID>> = \.$owner.$id

    /// What the token is for (see `AuthTokenKind`).
    public typealias Kind = AuthTokenKind

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Enum(key: "kind") public var kind: Kind
    /// Personal tokens carry the name the user gave them; sessions carry the browser's user agent.
    @Field(key: "name") public var name: String
    /// Hex SHA-256 of the secret.
    @Field(key: "secret_hash") public var secretHash: String
    /// The first characters of the secret, shown in lists.
    @Field(key: "prefix") public var prefix: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @OptionalField(key: "last_used_at") public var lastUsedAt: Date?
    /// Sessions expire; personal tokens have no expiry (`nil`).
    @OptionalField(key: "expires_at") public var expiresAt: Date?

    public init() {}

    public init(ownerID: UUID, kind: Kind, name: String, secretHash: String, prefix: String, expiresAt: Date?) {
        self.$owner.id = ownerID
        self.kind = kind
        self.name = name
        self.secretHash = secretHash
        self.prefix = prefix
        self.expiresAt = expiresAt
    }
}
