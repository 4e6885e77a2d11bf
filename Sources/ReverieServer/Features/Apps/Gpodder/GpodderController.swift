import Feeds
import Foundation
import ReverieAPI
import Vapor

/// The gpodder.net API v2 and its simple API, as AntennaPod, Kasts and gPodder speak them, over
/// the person's subscriptions and listening log. Every request signs in with the person's user
/// name and a `gpodder` app password (or the session cookie a login gave).
///
/// Reverie keeps one subscription list per person, so every device the person names is in one
/// sync group: a change from any device reaches all of them.
struct GpodderController: RouteCollection {
    let gate: AppGate
    let podcasts: PodcastController
    let repository: Store<any PodcastRepository>
    let devices: Store<any GpodderRepository>
    let log: EpisodeActionLog
    let now: @Sendable () -> Date
    /// Uploads of 25,000 actions run to a few megabytes.
    static let maxBody = 16 << 20

    func boot(routes: any RoutesBuilder) throws {
        let routes = routes.grouped(AppGate.SessionCookies())
        let api = routes.grouped("api", "2")
        // `{username}.json` where the user is last, `{username}/{device}.json` where a device is
        // named (one parameter name per place: the router needs it).
        api.on(.POST, "auth", ":username", ":device", takes: .file(limit: 1 << 10), use: auth)
        api.get("devices", ":username", use: listDevices)
        api.on(.POST, "devices", ":username", ":device", takes: .file(limit: 1 << 16), use: saveDevice)
        api.get("subscriptions", ":username", use: allSubscriptions)
        api.get("subscriptions", ":username", ":device", use: subscriptionChanges)
        api.on(.POST, "subscriptions", ":username", ":device", takes: .file(limit: Self.maxBody), use: uploadSubscriptionChanges)
        api.get("episodes", ":username", use: episodeActions)
        api.on(.POST, "episodes", ":username", takes: .file(limit: Self.maxBody), use: uploadEpisodeActions)
        api.get("sync-devices", ":username", use: syncGroups)
        api.on(.POST, "sync-devices", ":username", takes: .file(limit: 1 << 16), use: syncGroups)
        // The simple API.
        routes.get("subscriptions", ":username", use: simpleList)
        routes.get("subscriptions", ":username", ":device", use: simpleList)
        routes.on(.PUT, "subscriptions", ":username", ":device", takes: .file(limit: Self.maxBody), use: simpleReplace)
    }

    // MARK: - Signing in

    /// `POST /api/2/auth/{username}/login.json` and `…/logout.json`.
    func auth(req: Request) async throws -> Response {
        let username = try req.parameters.require("username")
        switch try req.parameters.require("device") {
        case "login.json":
            let signIn = try await gate.signIn(req, kind: .gpodder, username: username)
            let response = Response(status: .ok)
            // Signed in by its cookie already, a session goes on; by password, it has started one.
            if let started = req.storage[AppGate.StartedSession.self] {
                response.cookies[AppGate.sessionCookie] = started
            } else if req.cookies[AppGate.sessionCookie] == nil {
                response.cookies[AppGate.sessionCookie] = try await gate.startSession(for: signIn, req: req)
            }
            await gate.record(signIn, req, action: "signed in")
            return response
        case "logout.json":
            try await gate.endSession(req)
            let response = Response(status: .ok)
            response.cookies[AppGate.sessionCookie] = .expired
            return response
        default:
            throw Abort(.notFound)
        }
    }

    // MARK: - Devices

    /// `GET /api/2/devices/{username}.json`: the devices the person's apps named.
    func listDevices(req: Request) async throws -> Response {
        let (signIn, _) = try await signIn(req, format: "json")
        let count = try await repository.on(req).subscriptions(ownedBy: signIn.authenticated).count
        let list = try await devices.on(req).devices(ownerID: signIn.app.ownerID).map {
            ["id": $0.id, "caption": $0.caption, "type": $0.type, "subscriptions": count] as [String: Any]
        }
        return try Response.json(list)
    }

    /// `POST /api/2/devices/{username}/{device}.json` `{"caption", "type"}`.
    func saveDevice(req: Request) async throws -> Response {
        let (signIn, device) = try await signIn(req, format: "json")
        let body = req.body.data.map { Data(buffer: $0) } ?? Data()
        var caption: String?, type: String?
        if !body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw Self.badRequest("Send {\"caption\": …, \"type\": …} as JSON.")
            }
            caption = (object["caption"] as? String).map { String($0.prefix(200)) }
            type = (object["type"] as? String).map { String($0.prefix(20)) }
        }
        try await devices.on(req).saveDevice(device, caption: caption, type: type, ownerID: signIn.app.ownerID, now: now())
        await gate.record(signIn, req, action: "named the device \(device)")
        return Response(status: .ok)
    }

    // MARK: - Subscriptions

    /// `GET /api/2/subscriptions/{username}.json`: every feed the person subscribes to.
    func allSubscriptions(req: Request) async throws -> Response {
        let (signIn, _) = try await signIn(req, format: "json")
        let urls = try await feedURLs(signIn, req)
        await gate.record(signIn, req, action: "read subscriptions")
        return try Response.json(urls)
    }

    /// `GET /api/2/subscriptions/{username}/{device}.json?since=`: `{"add", "remove", "timestamp"}`.
    func subscriptionChanges(req: Request) async throws -> Response {
        let (signIn, device) = try await signIn(req, format: "json")
        try await devices.on(req).saveDevice(device, caption: nil, type: nil, ownerID: signIn.app.ownerID, now: now())
        let (added, removed, timestamp) = try await changes(since: try Self.since(req), signIn: signIn, req: req)
        await gate.record(signIn, req, action: "read subscriptions on \(device)")
        return try Response.json(["add": added, "remove": removed, "timestamp": timestamp])
    }

    /// The feeds added and removed since `since` (seconds; 0: all the person has), and the
    /// timestamp to ask from next.
    func changes(since: Int64, signIn: AppSignIn, req: Request) async throws -> (add: [String], remove: [String], timestamp: Int64) {
        let timestamp = Self.timestamp(now: Date())
        guard since > 0 else { return (try await feedURLs(signIn, req), [], timestamp) }
        var last: [String: Bool] = [:]
        for change in try await repository.on(req).subscriptionChanges(ownedBy: signIn.authenticated, since: since * 1000) {
            last[change.feedURL] = change.added
        }
        let current = Set(try await feedURLs(signIn, req))
        // A change since then that was undone again is said as things are now.
        return (last.filter { $0.value && current.contains($0.key) }.map(\.key).sorted(),
                last.filter { !$0.value && !current.contains($0.key) }.map(\.key).sorted(), timestamp)
    }

    /// `POST /api/2/subscriptions/{username}/{device}.json` `{"add", "remove"}`: answers
    /// `{"timestamp", "update_urls"}`, each address Reverie rewrote with what it keeps (`""` for
    /// one it cannot use).
    func uploadSubscriptionChanges(req: Request) async throws -> Response {
        let (signIn, device) = try await signIn(req, format: "json")
        let rewritten = try await upload(changesIn: req, signIn: signIn, device: device)
        return try Response.json(["timestamp": Self.timestamp(now: Date()), "update_urls": rewritten.map { [$0.0, $0.1] }])
    }

    /// Takes the subscription changes in the request's body; answers the addresses rewritten.
    func upload(changesIn req: Request, signIn: AppSignIn, device: String) async throws -> [(String, String)] {
        let changes: (add: [String], remove: [String])
        do {
            changes = try GpodderSync.subscriptionChanges(req.body.data.map { Data(buffer: $0) } ?? Data())
        } catch let refusal as GpodderSync.Refusal {
            throw Self.badRequest(refusal.description)
        }
        let (rewritten, added, removed) = try await apply(add: changes.add, remove: changes.remove, signIn: signIn, req: req)
        try await devices.on(req).saveDevice(device, caption: nil, type: nil, ownerID: signIn.app.ownerID, now: now())
        await gate.record(signIn, req, action: Self.said(added: added, removed: removed, on: device))
        return rewritten
    }

    /// Subscribes and unsubscribes; answers the addresses rewritten and how many changed.
    private func apply(add: [String], remove: [String], signIn: AppSignIn, req: Request) async throws
        -> (rewritten: [(String, String)], added: Int, removed: Int) {
        var rewritten: [(String, String)] = []
        var adding: [(url: String, title: String)] = []
        for url in add {
            guard let clean = GpodderSync.cleanURL(url) else {
                rewritten.append((url, ""))
                continue
            }
            if clean != url { rewritten.append((url, clean)) }
            adding.append((clean, clean))
        }
        let user = signIn.authenticated
        let (added, _, _) = try await podcasts.subscribe(to: adding, user: user, req: req)
        var removed = 0
        let store = repository.on(req)
        for url in remove {
            guard let podcast = try await store.podcast(feedURL: GpodderSync.cleanURL(url) ?? url),
                  try await store.subscription(to: podcast.id, ownedBy: user) != nil else { continue }
            try await podcasts.unsubscribe(from: podcast.id, user: user, req: req)
            removed += 1
        }
        return (rewritten, added, removed)
    }

    private func feedURLs(_ signIn: AppSignIn, _ req: Request) async throws -> [String] {
        try await repository.on(req).subscriptions(ownedBy: signIn.authenticated).map(\.podcast.feedURL).sorted()
    }

    // MARK: - Episode actions

    /// `POST /api/2/episodes/{username}.json` (a list of actions): kept all or none; answers
    /// `{"timestamp", "update_urls"}`.
    func uploadEpisodeActions(req: Request) async throws -> Response {
        let (signIn, _) = try await signIn(req, format: "json")
        let rewritten = try await receive(actionsIn: req, signIn: signIn, device: "default")
        return try Response.json(["timestamp": Self.timestamp(now: Date()), "update_urls": rewritten.map { [$0.0, $0.1] }])
    }

    /// Takes the episode actions in the request's body (those naming no device are `device`'s),
    /// all or none; answers the feed addresses rewritten.
    func receive(actionsIn req: Request, signIn: AppSignIn, device: String) async throws -> [(String, String)] {
        let sent: [GpodderSync.EpisodeAction]
        do {
            sent = try GpodderSync.episodeActions(req.body.data.map { Data(buffer: $0) } ?? Data(), device: device)
        } catch let refusal as GpodderSync.Refusal {
            throw Self.badRequest(refusal.description)
        }
        // Each feed's address as Reverie keeps it (what its refreshes look actions up by), and the
        // app told of each it should write so.
        var rewritten: [String: String] = [:]
        let actions = sent.map { action in
            var action = action
            if let clean = GpodderSync.cleanURL(action.podcast), clean != action.podcast {
                rewritten[action.podcast] = clean
                action.podcast = clean
            }
            return action
        }
        let named = Set(actions.map(\.device))
        guard named.count <= 100 else { throw Self.badRequest("At most 100 devices in one upload; this one names \(named.count).") }
        let received = GpodderClock.milliseconds()
        let found = try await log.receive(actions, user: signIn.authenticated, received: received)
        for device in named {
            try await devices.on(req).saveDevice(device, caption: nil, type: nil, ownerID: signIn.app.ownerID, now: now())
        }
        let waiting = actions.count - found
        await gate.record(signIn, req, action: "uploaded \(actions.count) episode \(actions.count == 1 ? "action" : "actions")"
                          + (waiting > 0 ? " (\(waiting) for episodes not yet read)" : ""))
        return rewritten.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `GET /api/2/episodes/{username}.json?since=&podcast=&device=&aggregated=`:
    /// `{"actions", "timestamp"}`.
    func episodeActions(req: Request) async throws -> Response {
        let (signIn, _) = try await signIn(req, format: "json")
        let since = try Self.since(req)
        let timestamp = Self.timestamp(now: Date())
        let podcast = try req.query.get(String?.self, at: "podcast")
        let device = try req.query.get(String?.self, at: "device")
        if let device, !GpodderSync.isDeviceID(device) {
            throw APIError(.badRequest, code: "invalid_field", "device: letters, digits, “.”, “-” and “_”, 1 to 64 of them.")
        }
        var actions = try await log.since(since * 1000, user: signIn.authenticated, podcast: podcast.flatMap(GpodderSync.cleanURL) ?? podcast,
                                          device: device)
        if (try req.query.get(String?.self, at: "aggregated"))?.lowercased() == "true" { actions = EpisodeActionLog.latest(actions) }
        await gate.record(signIn, req, action: "read \(actions.count) episode \(actions.count == 1 ? "action" : "actions")")
        return try Response.json(["actions": actions.map(\.json), "timestamp": timestamp])
    }

    // MARK: - Sync groups

    /// `GET` and `POST /api/2/sync-devices/{username}.json`: every device is in the one group
    /// (Reverie keeps one list per person), which a request to stop syncing cannot change.
    func syncGroups(req: Request) async throws -> Response {
        let (signIn, _) = try await signIn(req, format: "json")
        if req.method == .POST, let body = req.body.data, body.readableBytes > 0,
           (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] == nil {
            throw Self.badRequest("Send {\"synchronize\": [[…]], \"stop-synchronize\": […]} as JSON.")
        }
        let all = try await devices.on(req).devices(ownerID: signIn.app.ownerID).map(\.id)
        return try Response.json(["synchronized": all.count > 1 ? [all] : [], "not-synchronized": all.count == 1 ? all : []])
    }

    // MARK: - The simple API

    /// `GET /subscriptions/{username}.{format}` and `/subscriptions/{username}/{device}.{format}`:
    /// the person's feeds as OPML, JSON or text.
    func simpleList(req: Request) async throws -> Response {
        let format = try Self.format(req)
        let (signIn, _) = try await signIn(req, format: format)
        let subscriptions = try await repository.on(req).subscriptions(ownedBy: signIn.authenticated)
            .sorted { $0.podcast.title.lowercased() < $1.podcast.title.lowercased() }
        await gate.record(signIn, req, action: "read subscriptions")
        switch format {
        case "json": return try Response.json(subscriptions.map(\.podcast.feedURL))
        case "txt":
            return Response(status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8"],
                            body: .init(string: subscriptions.map { $0.podcast.feedURL + "\n" }.joined()))
        default:
            let outlines = subscriptions.map { OPMLOutline(title: $0.podcast.title, feedURL: $0.podcast.feedURL, siteURL: $0.podcast.link) }
            return Response(status: .ok, headers: ["Content-Type": "text/x-opml; charset=utf-8"], body: .init(string: OPML.export(outlines, created: now())))
        }
    }

    /// `PUT /subscriptions/{username}/{device}.{format}`: the device's whole list; what is new is
    /// subscribed to and what is missing unsubscribed.
    func simpleReplace(req: Request) async throws -> Response {
        let format = try Self.format(req)
        let (signIn, device) = try await signIn(req, format: format)
        let body = req.body.data.map { Data(buffer: $0) } ?? Data()
        // An empty list is said, never assumed: a body lost on the way must not unsubscribe everything.
        guard !body.isEmpty else { throw Self.badRequest("Send the device's whole list (an empty one as [] or an OPML file without feeds).") }
        let wanted: [String]
        do {
            wanted = try GpodderSync.subscriptionList(body, format: format)
        } catch let refusal as GpodderSync.Refusal {
            throw Self.badRequest(refusal.description)
        }
        // One address Reverie cannot read and the list is not what the app meant (another
        // format's body, an error page): nothing is unsubscribed on its word.
        if let unreadable = wanted.first(where: { GpodderSync.cleanURL($0) == nil }) {
            throw Self.badRequest("\(unreadable.prefix(100)) is not a feed's address; nothing was changed.")
        }
        let clean = Set(wanted.compactMap(GpodderSync.cleanURL))
        let current = Set(try await feedURLs(signIn, req))
        let (_, added, removed) = try await apply(add: clean.subtracting(current).sorted(), remove: current.subtracting(clean).sorted(),
                                                  signIn: signIn, req: req)
        try await devices.on(req).saveDevice(device, caption: nil, type: nil, ownerID: signIn.app.ownerID, now: now())
        await gate.record(signIn, req, action: Self.said(added: added, removed: removed, on: device))
        return Response(status: .ok)
    }

    // MARK: -

    /// Signs the request in, and reads the name in its last path part (`{name}.{format}`): the
    /// device id where the address names one (`{username}/{device}.json`), else the user name.
    private func signIn(_ req: Request, format: String) async throws -> (AppSignIn, String) {
        let suffix = "." + format
        func name(_ part: String) throws -> String {
            guard part.hasSuffix(suffix), part.count > suffix.count else { throw Abort(.notFound) }
            return String(part.dropLast(suffix.count))
        }
        let username = try req.parameters.require("username")
        guard let device = req.parameters.get("device") else {
            let user = try name(username)
            return (try await gate.signIn(req, kind: .gpodder, username: user), user)
        }
        let id = try name(device)
        guard GpodderSync.isDeviceID(id) else {
            throw Self.badRequest("The device id may hold letters, digits, “.”, “-” and “_”, 1 to 64 of them.")
        }
        return (try await gate.signIn(req, kind: .gpodder, username: username), id)
    }

    /// The simple API's format, from the address's last part (`….opml`, `….json`, `….txt`).
    private static func format(_ req: Request) throws -> String {
        let last = req.parameters.get("device") ?? req.parameters.get("username") ?? ""
        let format = String(last.split(separator: ".").last ?? "")
        guard ["opml", "json", "txt"].contains(format) else { throw Abort(.notFound) }
        return format
    }

    /// `since` in seconds (0 when absent).
    static func since(_ req: Request) throws -> Int64 {
        guard let text = try req.query.get(String?.self, at: "since"), !text.isEmpty else { return 0 }
        // Up to the year 2255: the log's order (milliseconds, and ×1,024 beside it) stays in 64 bits.
        guard let value = Int64(text), value >= 0, value <= 9_000_000_000 else {
            throw APIError(.badRequest, code: "invalid_field", "since: a time in seconds since 1970.")
        }
        return value
    }

    /// The time to give as the next `since`: a minute ago. Changes are stamped as they reach the
    /// server, before their transaction ends (an upload of 25,000 actions takes seconds), so one
    /// stamped before this answer may be read only after it: asking again from a minute back
    /// reads it then. What was already said may be said again, which apps take as it is.
    static func timestamp(now: Date) -> Int64 {
        max(0, Int64(now.timeIntervalSince1970.rounded(.down)) - Self.settling)
    }

    /// Seconds a change may take to be written after it was stamped.
    static let settling: Int64 = 60

    private static func said(added: Int, removed: Int, on device: String) -> String {
        switch (added, removed) {
        case (0, 0): "synced subscriptions on \(device)"
        case (_, 0): "subscribed to \(added) on \(device)"
        case (0, _): "unsubscribed from \(removed) on \(device)"
        default: "subscribed to \(added) and unsubscribed from \(removed) on \(device)"
        }
    }

    static func badRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: "invalid_body", message)
    }
}
