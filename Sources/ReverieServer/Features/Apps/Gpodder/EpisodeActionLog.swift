import Feeds
import Foundation
import Playback
import ReverieAPI

/// Podcast apps' episode actions as Reverie's listening log: an app's `play` (with its position)
/// is a progress event, `delete` a played mark and `new` an unplayed one; the events made in
/// Reverie go back to the apps as `play` actions (an unplayed mark as `new`). An action for an
/// episode Reverie does not know yet is kept, and written to the log when a refresh of its feed
/// finds the episode by its enclosure URL (or guid).
struct EpisodeActionLog: Sendable {
    let actions: Store<any GpodderRepository>
    let podcasts: Store<any PodcastRepository>
    let progress: Store<any ProgressRepository>
    let users: Store<any UserRepository>
    /// Progress events written for an app's action carry this before the action's id, so they are
    /// not sent back to the apps as Reverie's own.
    static let eventPrefix = "gpodder-"

    /// Keeps an upload and writes what can be found to the log; answers how many were found.
    func receive(_ uploaded: [GpodderSync.EpisodeAction], user: AuthenticatedUser, received: Int64) async throws -> Int {
        let ids = try await actions.outside.append(uploaded, ownerID: user.id, received: received)
        let stored = zip(ids, uploaded).map { StoredEpisodeAction(id: $0, action: $1, received: received) }
        return try await write(stored, user: user)
    }

    /// After a refresh of `podcast`'s feed: the actions that were waiting for its episodes.
    func refreshed(_ podcast: PodcastRecord) async throws {
        let waiting = try await actions.outside.waiting(podcastURL: podcast.feedURL)
        for (ownerID, list) in Dictionary(grouping: waiting, by: \.ownerID) {
            guard let person = try await users.outside.find(id: ownerID) else { continue }
            let user = AuthenticatedUser(id: person.id, username: person.username, isOwner: person.isOwner, tokenID: person.id, tokenKind: .app,
                                         accountCreatedAt: person.createdAt ?? Date(timeIntervalSince1970: 0))
            _ = try await write(list.map(\.action), user: user)
        }
    }

    /// Finds each action's episode and writes the progress events; answers how many were found.
    private func write(_ list: [StoredEpisodeAction], user: AuthenticatedUser) async throws -> Int {
        let podcasts = podcasts.outside
        var feeds: [String: PodcastRecord?] = [:]
        var events: [ProgressEvent] = [], items: [String] = []
        var foundByEpisode: [UUID: [UUID]] = [:]
        // An app's history names the same episodes again and again: each is looked up once.
        var episodes: [String: EpisodeRecord?] = [:]
        for stored in list where stored.action.action != .download && stored.action.action != .flattr {
            let feedURL = GpodderSync.cleanURL(stored.action.podcast) ?? stored.action.podcast
            if feeds[feedURL] == nil { feeds[feedURL] = .some(try await podcasts.podcast(feedURL: feedURL)) }
            guard let podcast = feeds[feedURL] ?? nil else { continue }
            let key = [podcast.id.uuidString, stored.action.episode, stored.action.guid ?? ""].joined(separator: "\n")
            if episodes[key] == nil {
                episodes[key] = .some(try await podcasts.episode(of: podcast.id, enclosureURL: stored.action.episode, guid: stored.action.guid))
            }
            guard let episode = episodes[key] ?? nil else { continue }
            foundByEpisode[episode.id, default: []].append(stored.id)
            if let event = Self.event(for: stored, episode: episode) {
                events.append(event)
                items.append(PodcastController.key(episode))
            }
        }
        if !events.isEmpty { _ = try await progress.outside.append(events, items: items, ownedBy: user) }
        for (episodeID, ids) in foundByEpisode { try await actions.outside.found(ids, episodeID: episodeID) }
        return foundByEpisode.values.reduce(0) { $0 + $1.count }
    }

    /// The progress event an app's action stands for, if any.
    static func event(for stored: StoredEpisodeAction, episode: EpisodeRecord) -> ProgressEvent? {
        let action = stored.action
        // A device's clock ahead of the server's cannot put its action past later ones.
        let received = Date(timeIntervalSince1970: Double(stored.received) / 1000)
        let at = min(action.timestamp ?? received, received)
        let id = eventPrefix + stored.id.uuidString.lowercased()
        switch action.action {
        case .play:
            guard let position = action.position else { return nil }
            return ProgressEvent(id: id, device: action.device, at: at, position: min(Double(position), ProgressController.longestPosition), kind: .pause)
        case .delete:
            let length = episode.duration ?? action.total.map(Double.init) ?? 0
            return ProgressEvent(id: id, device: action.device, at: at, position: min(max(length, 1), ProgressController.longestPosition), kind: .ended)
        case .new:
            return ProgressEvent(id: id, device: action.device, at: at, position: 0, kind: .unplayed)
        case .download, .flattr:
            return nil
        }
    }

    /// What the apps are told happened since `since` (milliseconds): their own actions as they
    /// sent them, and Reverie's own listening as `play` and `new` actions.
    func since(_ since: Int64, user: AuthenticatedUser, podcast: String?, device: String?) async throws -> [GpodderSync.EpisodeAction] {
        var answer = try await actions.outside.actions(ownerID: user.id, since: since, podcast: podcast, device: device).map(\.action)
        let arrival = since * 1000 * 1024
        let events = try await progress.outside.arrived(prefixed: PodcastController.progressPrefix, since: arrival, ownedBy: user)
        var episodes: [UUID: (EpisodeRecord, PodcastRecord)?] = [:]
        var totals: [String: [String: Double]] = [:]
        for (item, event) in events where !event.id.hasPrefix(Self.eventPrefix) {
            if let device, event.device != device { continue }
            guard let key = ItemKey(item), key.kind == .podcast, key.part == nil, let id = key.uuid else { continue }
            if episodes[id] == nil {
                var pair: (EpisodeRecord, PodcastRecord)?
                if let episode = try await podcasts.outside.episode(id), let show = try await podcasts.outside.podcast(episode.podcastID) {
                    pair = (episode, show)
                }
                episodes[id] = .some(pair)
            }
            guard let (episode, show) = episodes[id] ?? nil, let enclosure = episode.enclosureURL else { continue }
            if let podcast, podcast != show.feedURL { continue }
            var length = episode.duration.flatMap { $0.isFinite && $0 <= Double(GpodderSync.maxSeconds) ? $0 : nil }
            if length == nil {
                // A feed that gives no length: the one an app told.
                if totals[show.feedURL] == nil {
                    let told = try await actions.outside.actions(ownerID: user.id, since: 0, podcast: show.feedURL, device: nil)
                    totals[show.feedURL] = Dictionary(told.compactMap { stored in stored.action.total.map { (stored.action.episode, Double($0)) } },
                                                      uniquingKeysWith: { _, later in later })
                }
                length = totals[show.feedURL]?[enclosure]
            }
            guard let action = Self.action(for: event, episode: episode, length: length, enclosure: enclosure, feedURL: show.feedURL) else { continue }
            answer.append(action)
        }
        return answer
    }

    /// A Reverie progress event as an episode action.
    static func action(for event: ProgressEvent, episode: EpisodeRecord, length: Double?, enclosure: String, feedURL: String) -> GpodderSync.EpisodeAction? {
        let device = GpodderSync.isDeviceID(event.device) ? event.device : String(event.device.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(64))
        switch event.kind {
        case .unplayed:
            return GpodderSync.EpisodeAction(podcast: feedURL, episode: enclosure, guid: episode.guid, device: device, action: .new, timestamp: event.at)
        case .restart:
            return nil
        case .play, .pause, .seek, .ended, .timer:
            guard event.position > 0 else { return nil }
            // Seconds as apps count them, each within what an action may say (a length from a
            // feed or a position from the log past it would not fit an Int, or an app).
            let limit = Double(GpodderSync.maxSeconds)
            let total = Int(min(length ?? event.position, limit).rounded())
            let heard = Int(min(event.position, limit).rounded())
            let position = event.kind == .ended ? max(total, heard) : heard
            // Where playback started is not in Reverie's log: 0 says "from the top", as apps read it.
            return GpodderSync.EpisodeAction(podcast: feedURL, episode: enclosure, guid: episode.guid, device: device, action: .play,
                                             timestamp: event.at, started: 0, position: position, total: max(total, position))
        }
    }

    /// Each episode's latest action (by its time), for `aggregated=true`.
    static func latest(_ list: [GpodderSync.EpisodeAction]) -> [GpodderSync.EpisodeAction] {
        var latest: [String: GpodderSync.EpisodeAction] = [:]
        var order: [String] = []
        for action in list {
            let key = action.podcast + "\n" + action.episode
            guard let kept = latest[key] else {
                latest[key] = action
                order.append(key)
                continue
            }
            if (action.timestamp ?? .distantPast) >= (kept.timestamp ?? .distantPast) { latest[key] = action }
        }
        return order.compactMap { latest[$0] }
    }
}
