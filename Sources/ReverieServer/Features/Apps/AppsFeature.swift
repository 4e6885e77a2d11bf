import Foundation
import Vapor

/// Your own apps: app passwords per protocol (Settings → Apps), and the podcast apps' protocols
/// (the gpodder.net API v2 and its simple API) over the person's subscriptions and listening log.
struct AppsFeature: Feature {
    let routes: [any RouteCollection]

    init(apps: Store<any AppRepository>, passwords: AppPasswords, gpodder: GpodderController) {
        routes = [
            AppController(apps: apps, passwords: passwords, served: [.gpodder]),
            gpodder,
        ]
    }
}
