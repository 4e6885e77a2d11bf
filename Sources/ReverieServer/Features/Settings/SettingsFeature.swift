import Vapor

/// Settings: each person's settings, and what their plan entitles them to.
struct SettingsFeature: Feature {
    let routes: [any RouteCollection]

    init(settings: Store<any SettingsRepository>, developmentMode: Bool) {
        routes = [SettingsController(settings: settings, entitlements: Entitlements(developmentMode: developmentMode))]
    }
}
