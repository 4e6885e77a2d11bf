import Fluent
import SQLKit

/// Adds `users.must_change_password`: set when the owner gives someone a temporary password,
/// cleared when that person chooses their own.
struct AddPasswordChangeRequired: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserModel.schema)
            .field("must_change_password", .bool, .required, .sql(.default(false)))
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserModel.schema).deleteField("must_change_password").update()
    }
}
