import Foundation
import Vapor

/// Your own apps: app passwords per protocol (Settings → Apps), and the podcast apps' protocols
/// (the gpodder.net API v2 and its simple API, and Nextcloud's gpoddersync with its Login Flow v2) and wallabag's API v2 over their articles over the person's subscriptions and listening log.
struct AppsFeature: Feature {
    let routes: [any RouteCollection]

    init(apps: Store<any AppRepository>, passwords: AppPasswords, gpodder: GpodderController, wallabag: WallabagController) {
        routes = [
            AppController(apps: apps, passwords: passwords, served: [.gpodder, .wallabag]),
            wallabag,
            gpodder,
            NextcloudGpodder(gpodder: gpodder, apps: apps, passwords: passwords, now: gpodder.now),
        ]
    }
}
