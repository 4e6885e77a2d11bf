import ReverieAPI
import Vapor

/// The signed-in user's settings (the theme, for now).
struct SettingsController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "settings", use: get)
        routes.patch("api", "settings", use: update)
    }

    func get(req: Request) async throws -> UserSettings {
        try await load(req)
    }

    /// Saves the fields present in the body and answers with all settings.
    func update(req: Request) async throws -> UserSettings {
        let patch = try req.content.decode(UserSettings.self)
        var values: [String: String] = [:]
        if let theme = patch.theme { values["theme"] = try Self.json(theme) }
        if !values.isEmpty {
            try await req.repositories.settings.save(values, ownedBy: req.user)
        }
        return try await load(req)
    }

    private func load(_ req: Request) async throws -> UserSettings {
        let stored = try await req.repositories.settings.all(ownedBy: req.user)
        // A stored value this version cannot read (an older theme name) falls back to the default.
        let theme = stored["theme"].flatMap { try? JSONDecoder().decode(Theme.self, from: Data($0.utf8)) }
        return UserSettings(theme: theme ?? .default)
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}
