import Fluent

/// Users, their tokens and sessions, and their settings.
struct CreateAccounts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserModel.schema)
            .id()
            .field("username", .string, .required)
            .field("password_hash", .string, .required)
            .field("is_owner", .bool, .required)
            .field("created_at", .datetime)
            .unique(on: "username")
            .create()

        try await database.schema(AuthTokenModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("name", .string, .required)
            .field("secret_hash", .string, .required)
            .field("prefix", .string, .required)
            .field("created_at", .datetime)
            .field("last_used_at", .datetime)
            .field("expires_at", .datetime)
            .unique(on: "secret_hash")
            .create()

        try await database.schema(UserSettingModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("key", .string, .required)
            .field("value", .string, .required)
            .field("updated_at", .datetime)
            .unique(on: "owner_id", "key")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserSettingModel.schema).delete()
        try await database.schema(AuthTokenModel.schema).delete()
        try await database.schema(UserModel.schema).delete()
    }
}
