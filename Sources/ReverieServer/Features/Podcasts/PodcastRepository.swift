import Fluent
import FluentSQL
import Feeds
import Foundation
import SQLKit

/// Podcasts, their episodes, and people's subscriptions and downloads.
public protocol PodcastRepository: Sendable {
    func podcast(feedURL: String) async throws -> PodcastModel?
    func podcast(_ id: UUID) async throws -> PodcastModel?
    /// The podcast for `feedURL`, made (due for refresh now) if Reverie has never seen it.
    func podcastCreating(feedURL: String, title: String, now: Date) async throws -> PodcastModel
    func save(_ podcast: PodcastModel) async throws
    /// Adds episodes not seen before (by guid) and updates the ones that are; returns how many were new.
    func merge(_ episodes: [ParsedEpisode], into podcastID: UUID, seenAt: Date) async throws -> Int
    func episodes(of podcastID: UUID) async throws -> [EpisodeModel]
    func episode(_ id: UUID) async throws -> EpisodeModel?
    func episodeCounts(_ podcastIDs: [UUID], firstSeenAfter: [UUID: Date]) async throws -> [UUID: (all: Int, new: Int)]

    func subscriptions(ownedBy user: AuthenticatedUser) async throws -> [SubscriptionModel]
    func subscription(to podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> SubscriptionModel?
    func subscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser, now: Date) async throws -> (SubscriptionModel, created: Bool)
    func save(_ subscription: SubscriptionModel) async throws
    func unsubscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
    /// Someone who subscribes (the earliest), for work done on the podcast's behalf.
    func anySubscriber(of podcastID: UUID) async throws -> UUID?

    /// Takes up to `limit` podcasts due for refresh (with a subscriber), pushing their next
    /// refresh to `leaseUntil`; servers sharing the database never take the same one.
    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [UUID]

    func download(of episodeID: UUID, ownedBy user: AuthenticatedUser) async throws -> EpisodeDownloadModel?
    func download(_ id: UUID) async throws -> EpisodeDownloadModel?
    func downloads(ownedBy user: AuthenticatedUser, episodes: [UUID]) async throws -> [UUID: EpisodeDownloadModel]
    func save(_ download: EpisodeDownloadModel) async throws
    func delete(_ download: EpisodeDownloadModel) async throws
}

struct FluentPodcastRepository: PodcastRepository {
    let database: any Database

    func podcast(feedURL: String) async throws -> PodcastModel? {
        try await PodcastModel.query(on: database).filter(\.$feedURL == feedURL).first()
    }

    func podcast(_ id: UUID) async throws -> PodcastModel? {
        try await PodcastModel.find(id, on: database)
    }

    func podcastCreating(feedURL: String, title: String, now: Date) async throws -> PodcastModel {
        if let found = try await podcast(feedURL: feedURL) { return found }
        let made = PodcastModel(feedURL: feedURL, title: title, nextRefreshAt: now)
        do {
            try await made.create(on: database)
            return made
        } catch {
            // Two people adding the same feed at once: the other's row stands.
            if let found = try await podcast(feedURL: feedURL) { return found }
            throw error
        }
    }

    func save(_ podcast: PodcastModel) async throws {
        try await podcast.save(on: database)
    }

    func merge(_ parsed: [ParsedEpisode], into podcastID: UUID, seenAt: Date) async throws -> Int {
        let existing = try await EpisodeModel.query(on: database).filter(\.$podcast.$id == podcastID).all()
        let known = Dictionary(existing.map { ($0.guid, $0) }, uniquingKeysWith: { first, _ in first })
        return try await database.transaction { database in
            var byGUID = known
            var added = 0
            // Feed order is newest first, usually; the first seen time steps back by a millisecond
            // an episode so that one refresh's episodes keep their order among themselves.
            for (index, episode) in parsed.enumerated() {
                let guid = String(episode.guid.prefix(1000))
                let row = byGUID[guid] ?? EpisodeModel()
                if row.id == nil {
                    row.$podcast.id = podcastID
                    row.guid = guid
                    row.firstSeenAt = seenAt.addingTimeInterval(-Double(index) / 1000)
                    added += 1
                }
                row.title = String(episode.title.prefix(1000))
                row.published = episode.published
                row.duration = episode.duration
                row.summary = episode.description.map { String(PlainText.fromHTML($0).prefix(4000)) }
                row.image = episode.image
                row.enclosureURL = episode.enclosure?.url
                row.enclosureType = episode.enclosure?.type
                row.enclosureLength = episode.enclosure?.length
                row.chaptersURL = episode.chapters
                row.transcripts = String(decoding: try JSONEncoder().encode(episode.transcripts), as: UTF8.self)
                if row.hasChanges || row.id == nil { try await row.save(on: database) }
                byGUID[guid] = row
            }
            return added
        }
    }

    func episodes(of podcastID: UUID) async throws -> [EpisodeModel] {
        try await EpisodeModel.query(on: database).filter(\.$podcast.$id == podcastID).all()
    }

    func episode(_ id: UUID) async throws -> EpisodeModel? {
        try await EpisodeModel.find(id, on: database)
    }

    func episodeCounts(_ podcastIDs: [UUID], firstSeenAfter: [UUID: Date]) async throws -> [UUID: (all: Int, new: Int)] {
        guard !podcastIDs.isEmpty else { return [:] }
        let rows = try await EpisodeModel.query(on: database).filter(\.$podcast.$id ~~ podcastIDs).field(\.$podcast.$id).field(\.$firstSeenAt).all()
        var counts: [UUID: (all: Int, new: Int)] = [:]
        for row in rows {
            let id = row.$podcast.id
            var count = counts[id] ?? (0, 0)
            count.all += 1
            if let seen = firstSeenAfter[id], row.firstSeenAt > seen { count.new += 1 }
            counts[id] = count
        }
        return counts
    }

    func subscriptions(ownedBy user: AuthenticatedUser) async throws -> [SubscriptionModel] {
        try await SubscriptionModel.query(ownedBy: user, on: database).with(\.$podcast).all()
    }

    func subscription(to podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> SubscriptionModel? {
        try await SubscriptionModel.query(ownedBy: user, on: database).filter(\.$podcast.$id == podcastID).with(\.$podcast).first()
    }

    func subscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser, now: Date) async throws -> (SubscriptionModel, created: Bool) {
        if let found = try await subscription(to: podcastID, ownedBy: user) { return (found, false) }
        let made = SubscriptionModel(ownerID: user.id, podcastID: podcastID, seenUntil: now)
        do {
            try await made.create(on: database)
        } catch {
            if let found = try await subscription(to: podcastID, ownedBy: user) { return (found, false) }
            throw error
        }
        return (try await subscription(to: podcastID, ownedBy: user) ?? made, true)
    }

    func save(_ subscription: SubscriptionModel) async throws {
        try await subscription.save(on: database)
    }

    func unsubscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let found = try await SubscriptionModel.query(ownedBy: user, on: database).filter(\.$podcast.$id == podcastID).first() else { return false }
        try await found.delete(on: database)
        return true
    }

    func anySubscriber(of podcastID: UUID) async throws -> UUID? {
        try await SubscriptionModel.query(on: database).filter(\.$podcast.$id == podcastID).sort(\.$createdAt).first()?.$owner.id
    }

    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [UUID] {
        guard let sql = database as? any SQLDatabase else { return [] }
        // As jobs are taken: pick and push on in one statement; on PostgreSQL the pick skips rows
        // another server is taking, and the outer condition is checked again on each row.
        let skipLocked = sql.dialect.name == "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""
        let rows = try await sql.raw("""
            UPDATE podcasts SET next_refresh_at = \(bind: leaseUntil)
            WHERE id IN (SELECT id FROM podcasts WHERE next_refresh_at <= \(bind: now)
                           AND EXISTS (SELECT 1 FROM podcast_subscriptions s WHERE s.podcast_id = podcasts.id)
                         ORDER BY next_refresh_at LIMIT \(bind: limit)\(unsafeRaw: skipLocked))
              AND next_refresh_at <= \(bind: now)
            RETURNING id
            """).all()
        return rows.compactMap { try? $0.decode(column: "id", as: UUID.self) }
    }

    func download(of episodeID: UUID, ownedBy user: AuthenticatedUser) async throws -> EpisodeDownloadModel? {
        try await EpisodeDownloadModel.query(ownedBy: user, on: database).filter(\.$episode.$id == episodeID).first()
    }

    func download(_ id: UUID) async throws -> EpisodeDownloadModel? {
        try await EpisodeDownloadModel.find(id, on: database)
    }

    func downloads(ownedBy user: AuthenticatedUser, episodes: [UUID]) async throws -> [UUID: EpisodeDownloadModel] {
        guard !episodes.isEmpty else { return [:] }
        let rows = try await EpisodeDownloadModel.query(ownedBy: user, on: database).filter(\.$episode.$id ~~ episodes).all()
        return Dictionary(rows.map { ($0.$episode.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func save(_ download: EpisodeDownloadModel) async throws {
        try await download.save(on: database)
    }

    func delete(_ download: EpisodeDownloadModel) async throws {
        try await download.delete(on: database)
    }
}
