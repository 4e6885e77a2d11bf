import Fluent
import SQLKit
import Vapor

/// Per-user settings as JSON values by key.
public protocol SettingsRepository: Sendable {
    /// Every setting the user has saved, as key → JSON text.
    func all(ownedBy user: AuthenticatedUser) async throws -> [String: String]
    /// Saves settings (key → JSON text), replacing earlier values of the same keys, all or none.
    func save(_ values: [String: String], ownedBy user: AuthenticatedUser) async throws
}

/// `SettingsRepository` on Fluent.
struct FluentSettingsRepository: SettingsRepository {
    let database: any Database

    func all(ownedBy user: AuthenticatedUser) async throws -> [String: String] {
        let rows = try await UserSettingModel.query(ownedBy: user, on: database).all()
        return Dictionary(rows.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    func save(_ values: [String: String], ownedBy user: AuthenticatedUser) async throws {
        // One upsert per key, writes only: on SQLite a transaction that reads before it writes
        // cannot wait for another connection's write and fails with SQLITE_BUSY.
        try await database.transaction { database in
            let sql = database as! any SQLDatabase
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try await sql.insert(into: UserSettingModel.schema)
                    .columns("id", "owner_id", "key", "value", "updated_at")
                    .values(SQLBind(UUID()), SQLBind(user.id), SQLBind(key), SQLBind(value), SQLBind(Date()))
                    .onConflict(with: ["owner_id", "key"]) { $0.set(excludedValueOf: "value").set(excludedValueOf: "updated_at") }
                    .run()
            }
        }
    }
}
