import Fluent
import Foundation
import SQLKit

/// An app a person connected (AntennaPod, a Subsonic player, wallabag's share extension), with
/// its own password for its protocol. The password is kept twice: its SHA-256, which signing in
/// looks up, and sealed with the server's key (`AppPasswords`), since Subsonic's token sign-in
/// needs the password itself.
final class AppModel: Model, UserOwnedModel, @unchecked Sendable {
    static let schema = "apps"
    static let ownerID: KeyPath<AppModel, FieldProperty<AppModel, UUID>> = \.$owner.$id

    @ID(key: .id) var id: UUID?
    @Parent(key: "owner_id") var owner: UserModel
    @Field(key: "kind") var kind: String
    @Field(key: "name") var name: String
    /// Hex SHA-256 of the password.
    @Field(key: "secret_hash") var secretHash: String
    /// The password sealed with AES-GCM under `<data>/keys/apps.key`, base64, for the protocols
    /// that need it (Subsonic); "" for the others.
    @Field(key: "sealed_secret") var sealedSecret: String
    @Field(key: "prefix") var prefix: String
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @OptionalField(key: "last_used_at") var lastUsedAt: Date?
    @OptionalField(key: "last_action") var lastAction: String?
    /// An OAuth client's id and its secret's hash (wallabag's apps sign in as a client).
    @OptionalField(key: "client_id") var clientID: String?
    @OptionalField(key: "client_secret_hash") var clientSecretHash: String?

    init() {}

    init(ownerID: UUID, kind: String, name: String, secretHash: String, sealedSecret: String, prefix: String) {
        self.$owner.id = ownerID
        self.kind = kind
        self.name = name
        self.secretHash = secretHash
        self.sealedSecret = sealedSecret
        self.prefix = prefix
    }
}

/// The apps table, their sign-in sessions (gpodder's `sessionid` cookie), and what the podcast
/// protocols keep: a person's devices, their episode actions, and the log of subscription changes
/// that `since` reads.
struct CreateApps: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(AppModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("name", .string, .required)
            .field("secret_hash", .string, .required)
            .field("sealed_secret", .string, .required)
            .field("prefix", .string, .required)
            .field("created_at", .datetime)
            .field("last_used_at", .datetime)
            .field("last_action", .string)
            .unique(on: "secret_hash")
            .create()
        try await database.schema("app_sessions")
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("app_id", .uuid, .required, .references(AppModel.schema, "id", onDelete: .cascade))
            .field("secret_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .unique(on: "secret_hash")
            .create()
        try await database.schema("gpodder_devices")
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("device", .string, .required)
            .field("caption", .string, .required)
            .field("type", .string, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "owner_id", "device")
            .create()
        try await database.schema("episode_actions")
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("podcast_url", .string, .required)
            .field("episode_url", .string, .required)
            .field("guid", .string)
            .field("device", .string, .required)
            .field("action", .string, .required)
            .field("at", .datetime, .required)
            .field("started", .int)
            .field("position", .int)
            .field("total", .int)
            // When it reached the server, in milliseconds: what `since` counts by.
            .field("received", .int64, .required)
            // The episode it was found to be (its progress event written), or nil until a refresh finds it.
            .field("episode_id", .uuid)
            .create()
        try await database.schema("subscription_changes")
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("feed_url", .string, .required)
            .field("added", .bool, .required)
            .field("received", .int64, .required)
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE INDEX episode_actions_owner_received ON episode_actions (owner_id, received)").run()
        try await sql.raw("CREATE INDEX episode_actions_unmatched ON episode_actions (podcast_url) WHERE episode_id IS NULL").run()
        try await sql.raw("CREATE INDEX subscription_changes_owner_received ON subscription_changes (owner_id, received)").run()
    }

    func revert(on database: any Database) async throws {
        for table in ["subscription_changes", "episode_actions", "gpodder_devices", "app_sessions", AppModel.schema] {
            try await database.schema(table).delete()
        }
    }
}

/// wallabag's clients and tokens, Nextcloud's login flows and wallabag's marks on articles: the
/// apps' OAuth client ids and secrets, what each session is for (gpodder's cookie, or an OAuth
/// access or refresh token), the flows an app starts and the person approves, and stars and tags.
struct AddAppClients: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column at a time: SQLite adds one per ALTER TABLE.
        try await database.schema(AppModel.schema).field("client_id", .string).update()
        try await database.schema(AppModel.schema).field("client_secret_hash", .string).update()
        try await database.schema("app_sessions")
            .field("purpose", .string, .required, .sql(.default(AppSessionPurpose.cookie.rawValue)))
            .update()
        try await database.schema("article_marks")
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("article_id", .uuid, .required, .references(ArticleModel.schema, "id", onDelete: .cascade))
            .field("starred_at", .datetime)
            .field("tags", .string, .required)
            // When wallabag's apps last changed the entry (what their `since` reads).
            .field("updated_at", .datetime, .required)
            .unique(on: "article_id")
            .create()
        try await database.schema("login_flows")
            .id()
            .field("login_token", .string, .required)
            .field("poll_hash", .string, .required)
            .field("name", .string, .required)
            // Who started it (the client's address): a few each, so no one fills the waiting room.
            .field("address", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("owner_id", .uuid, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("sealed_secret", .string)
            .unique(on: "login_token")
            .unique(on: "poll_hash")
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE UNIQUE INDEX apps_client_id ON apps (client_id)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("login_flows").delete()
        try await database.schema("article_marks").delete()
        try await database.schema("app_sessions").deleteField("purpose").update()
        try await database.schema(AppModel.schema).deleteField("client_secret_hash").update()
        try await database.schema(AppModel.schema).deleteField("client_id").update()
    }
}
