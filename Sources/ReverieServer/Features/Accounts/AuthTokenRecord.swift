import Foundation

/// What a token is for: how a request carries it and when it ends.
public enum AuthTokenKind: String, Codable, Sendable {
    /// A web session, carried by the `reverie_session` cookie; ends at logout or expiry.
    case session
    /// A personal token for the CLI and scripts, carried by `Authorization: Bearer`; ends when revoked.
    case personal
    /// A connected app's password (gpodder, Subsonic, wallabag), for its protocol's routes only;
    /// kept in the `apps` table, never in `auth_tokens`.
    case app
}

/// A session or personal token as the tokens table holds it: what `AuthTokenRepository` answers,
/// a value that knows nothing of the database (see `AuthTokenModel` for the row it is read from).
/// It carries neither the secret nor its hash: nothing that reads a token needs them.
public struct AuthTokenRecord: Sendable, Equatable {
    public var id: UUID
    /// The account the token signs in.
    public var ownerID: UUID
    public var kind: AuthTokenKind
    /// Personal tokens carry the name the person gave them; sessions carry the browser's user agent.
    public var name: String
    /// The first characters of the secret, shown in lists.
    public var prefix: String
    /// When it was made; nil only for a row written without Fluent's timestamp.
    public var createdAt: Date?
    public var lastUsedAt: Date?
    /// Sessions expire; personal tokens have no expiry (`nil`).
    public var expiresAt: Date?
}
