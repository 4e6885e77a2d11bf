import Bedside
import Foundation
import Playback
import ReverieAPI
import SleepLibrary
import Vapor

extension ProgressEventsResponse: Content {}
extension ItemProgress: Content {}

/// Listening progress, shared by every area that plays something: players add events, and read
/// back where the person is (on any of their devices).
struct ProgressController: RouteCollection {
    let progress: Store<any ProgressRepository>
    let now: @Sendable () -> Date
    /// What else happens once items are played (a podcast's downloads deleted after playing).
    let afterPlayed: @Sendable (_ items: [String], _ req: Request) async throws -> Void
    let library: SleepLibrary
    /// Bedside's presets, for `bedside:<preset id>` items (a person's own pieces are `bedside:<uuid>`).
    let bedside: BedsideLibrary
    /// Events in one upload.
    static let maximumEvents = 500
    /// Seconds into an item that a position may say (a week of audio).
    static let longestPosition = 7.0 * 24 * 3600

    func boot(routes: any RoutesBuilder) throws {
        let progress = routes.grouped("api", "progress")
        progress.post("events", use: append)
        progress.get(":item", use: item)
        // A chapter's key holds a slash (`library:<id>/<index>`): sent as it is, or as %2F above.
        progress.get(":item", ":part", use: item)
    }

    /// `POST /api/progress/events`: adds the events not seen before; answers each item's place.
    func append(req: Request) async throws -> ProgressEventsResponse {
        let user = try req.user
        let body = try req.content.decode(ProgressEventsRequest.self)
        guard (1...Self.maximumEvents).contains(body.events.count) else {
            throw APIError(.badRequest, code: "invalid_field", "events: send 1 to \(Self.maximumEvents) events at a time.")
        }
        let now = self.now()
        // Each item kept as every player writes it (`ItemKey`, in small letters), whatever case was sent.
        let (events, keys) = try body.events.reduce(into: ([ProgressEvent](), [String]())) { made, input in
            let (event, key) = try validated(input, now: now)
            made.0.append(event)
            made.1.append(key)
        }
        let accepted = try await progress.on(req).append(events, items: keys, ownedBy: user)
        var items: [String] = []
        for key in keys where !items.contains(key) { items.append(key) }
        let places = try await progress.on(req).places(of: items, ownedBy: user)
        try await afterPlayed(items, req)
        return ProgressEventsResponse(accepted: accepted, items: items.map { Self.progress($0, places[$0] ?? [], duration: duration(of: $0)) })
    }

    /// `GET /api/progress/{item}[?device=NAME]`: where the person is in one item (a null position
    /// before anything was heard); with `device`, that device's own place and the offer of
    /// another device's.
    func item(req: Request) async throws -> ItemProgress {
        let user = try req.user
        let item = try checkItem([req.parameters.get("item"), req.parameters.get("part")].compactMap { $0 }.joined(separator: "/"))
        let device = try req.queryString("device", maximumLength: 60)
        // Each device's place (not the whole log): the item's is the latest of them.
        let events = try await progress.on(req).places(of: [item], ownedBy: user)[item] ?? []
        var progress = Self.progress(item, events, duration: duration(of: item))
        if let device {
            let latest = ListeningProgress.position(events, duration: duration(of: item))
            let own = ListeningProgress.position(events.filter { $0.device == device }, duration: duration(of: item))
            progress.devicePosition = own?.position
            progress.offer = own.flatMap { ListeningProgress.offer(latest, device: device, localPosition: $0.position) }
        }
        return progress
    }

    static func progress(_ item: String, _ events: [ProgressEvent], duration: Double?) -> ItemProgress {
        let position = ListeningProgress.position(events, duration: duration)
        return ItemProgress(item: item, position: position?.position, at: position?.at, device: position?.device, finished: position?.finished ?? false)
    }

    /// The length of a known item, in seconds.
    func duration(of item: String) -> Double? {
        Self.windDownID(item).flatMap(library.item).map { Double($0.duration) }
    }

    /// Wind Down items' keys begin so: `winddown:<catalog id>`.
    static let windDown = ItemKey.Kind.windDown.prefix

    /// The catalog id in a Wind Down item's key, or nil for another key.
    static func windDownID(_ item: String) -> String? {
        ItemKey(item).flatMap { $0.kind == .windDown ? $0.id : nil }
    }

    /// Listen library items' keys begin so: `library:<the item's UUID>`; a book's chapters are
    /// `library:<the book's UUID>/<index from 0>`.
    static let libraryPrefix = ItemKey.Kind.library.prefix

    /// What the progress log keeps (`ItemKey`): Wind Down's items (`winddown:<catalog id>`), Bedside's
    /// pieces (`bedside:<preset id>`, or `bedside:<uuid>` for one's own; the log is the person's, so
    /// an id names only their own), library items and their chapters, LibriVox books streamed and
    /// their sections, podcast episodes and their chapters.
    /// - Returns: the key as written, in small letters.
    func checkItem(_ item: String) throws -> String {
        if let key = ItemKey(item) {
            switch key.kind {
            case .windDown: if library.item(key.id) != nil { return key.text }
            case .bedside: if bedside.preset(key.id) != nil || key.uuid != nil { return key.text }
            case .library, .librivox, .podcast: return key.text
            case .article: break
            }
        }
        throw APIError(.badRequest, code: "invalid_field", "item: “\(item.prefix(120))” is not something Reverie plays (Wind Down items are winddown:<id>, as GET /api/winddown lists them; Bedside pieces are bedside:<id>, as GET /api/bedside/pieces lists them; library items are library:<id>, as GET /api/library lists them, and a book's chapters library:<id>/<index>; a LibriVox book streamed is librivox:<id>; a podcast episode is podcast:<episode id>, and its chapters podcast:<episode id>/<index>).")
    }

    /// The event as kept, and its item's key as written (read once, by `checkItem`).
    func validated(_ input: ProgressEventInput, now: Date) throws -> (ProgressEvent, key: String) {
        guard !input.id.isEmpty, input.id.count <= 100 else {
            throw APIError(.badRequest, code: "invalid_field", "id: a client event id of 1 to 100 characters.")
        }
        let key = try checkItem(input.item)
        guard !input.device.trimmingCharacters(in: .whitespaces).isEmpty, input.device.count <= 60 else {
            throw APIError(.badRequest, code: "invalid_field", "device: a device name of 1 to 60 characters.")
        }
        guard input.position.isFinite, (0...Self.longestPosition).contains(input.position) else {
            throw APIError(.badRequest, code: "invalid_field", "position: seconds into the item, from 0 to \(Int(Self.longestPosition)).")
        }
        guard let kind = ProgressEvent.Kind(rawValue: input.kind) else {
            throw APIError(.badRequest, code: "invalid_field",
                           "kind: one of \(ProgressEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        // A device whose clock runs ahead would otherwise win over every later event: its future is now.
        return (ProgressEvent(id: input.id, device: input.device.trimmingCharacters(in: .whitespaces), at: min(input.at, now),
                              position: input.position, kind: kind), key)
    }
}
