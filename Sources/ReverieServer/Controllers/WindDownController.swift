import Foundation
import Playback
import SleepLibrary
import Vapor

extension SleepItem: Content {}

/// Wind Down: the sleep library with the person's progress.
struct WindDownController: RouteCollection {
    let library: SleepLibrary

    /// A catalog item with how far the person got.
    struct Item: Content {
        var item: SleepItem
        /// 0…1 heard.
        var progress: Double
        /// Seconds into the item, when begun.
        var position: Double?
        var comingSoon: Bool
    }

    struct Section: Content {
        var type: SleepContentType
        var title: String
        var color: String
        var icon: String
        var items: [Item]
    }

    /// `GET /api/winddown`: the screen in the seed's order.
    struct Home: Content {
        var greeting: String
        var featured: Item?
        /// Begun and under 95%, most recent first.
        var continueListening: [Item]
        var sections: [Section]
    }

    func boot(routes: any RoutesBuilder) throws {
        let windDown = routes.grouped("api", "winddown")
        windDown.get(use: home)
        windDown.get(":id", use: item)
    }

    /// `?timeZone=Europe/Paris` says the person's hour for the greeting (UTC when absent).
    func home(req: Request) async throws -> Home {
        let user = try req.user
        let name = try req.queryString("timeZone", maximumLength: 100) ?? "UTC"
        guard let zone = TimeZone(identifier: name) else {
            throw APIError(.badRequest, code: "invalid_time_zone", "timeZone: “\(name)” is not a time zone name like Europe/Paris.")
        }
        let logs = try await req.repositories.progress.events(prefixed: ProgressController.windDown, ownedBy: user)
        var positions: [String: ListeningPosition] = [:]
        for (key, events) in logs {
            guard let item = ProgressController.windDownID(key).flatMap(library.item) else { continue }
            positions[item.id] = ListeningProgress.position(events, duration: Double(item.duration))
        }
        func described(_ item: SleepItem) -> Item { Self.described(item, positions[item.id]) }
        let progress = positions.compactMap { id, position in
            library.item(id).map { SleepProgress(itemID: id, fraction: ListeningProgress.fraction(position, duration: Double($0.duration)), updatedAt: position.at) }
        }
        return Home(
            greeting: SleepLibrary.greeting(at: req.services.now(), in: zone),
            featured: library.featured.map(described),
            continueListening: library.continueListening(progress).map(described),
            sections: SleepContentType.allCases.map { type in
                Section(type: type, title: type.displayName, color: type.color, icon: type.icon, items: library.items(of: type).map(described))
            })
    }

    /// `GET /api/winddown/{id}`: one item with the person's progress.
    func item(req: Request) async throws -> Item {
        let user = try req.user
        let id = req.parameters.get("id") ?? ""
        guard let item = library.item(id) else { throw APIError(.notFound, code: "not_found", "No Wind Down item is called “\(id.prefix(100))”.") }
        let events = try await req.repositories.progress.events(of: [ProgressController.windDown + id], ownedBy: user).values.first ?? []
        return Self.described(item, ListeningProgress.position(events, duration: Double(item.duration)))
    }

    static func described(_ item: SleepItem, _ position: ListeningPosition?) -> Item {
        Item(item: item, progress: ListeningProgress.fraction(position, duration: Double(item.duration)),
             position: position?.position, comingSoon: item.isComingSoon)
    }
}
