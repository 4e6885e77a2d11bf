import Fluent
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
        try await database.transaction { database in
            for (key, value) in values {
                if let row = try await UserSettingModel.query(ownedBy: user, on: database).filter(\.$key == key).first() {
                    row.value = value
                    try await row.update(on: database)
                } else {
                    try await UserSettingModel(ownerID: user.id, key: key, value: value).create(on: database)
                }
            }
        }
    }
}
