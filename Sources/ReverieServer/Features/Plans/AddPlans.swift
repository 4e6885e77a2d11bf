import Fluent
import SQLKit

/// Adds `users.plan` (`free` until the owner grants Plus) and `users.plan_bypass` (the
/// development-only switch).
struct AddPlans: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column at a time: SQLite adds one per ALTER TABLE.
        try await database.schema(UserModel.schema).field("plan", .string, .required, .sql(.default("free"))).update()
        try await database.schema(UserModel.schema).field("plan_bypass", .bool, .required, .sql(.default(false))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserModel.schema).deleteField("plan_bypass").update()
        try await database.schema(UserModel.schema).deleteField("plan").update()
    }
}
