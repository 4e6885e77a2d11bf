import Fluent
import ReverieAPI
import FluentSQL
import Feeds
import Foundation
import SQLKit

/// Podcasts, their episodes, and people's subscriptions and downloads, as `PodcastRecord`,
/// `EpisodeRecord`, `SubscriptionRecord` and `EpisodeDownloadRecord` values.
public protocol PodcastRepository: Sendable {
    func podcast(feedURL: String) async throws -> PodcastRecord?
    func podcast(_ id: UUID) async throws -> PodcastRecord?
    /// The podcast for `feedURL`, made (due for refresh now) if Reverie has never seen it.
    func podcastCreating(feedURL: String, title: String, now: Date) async throws -> PodcastRecord
    /// Writes what the feed said and how it was fetched to the podcast with the record's id
    /// (nothing when it is gone).
    func save(_ podcast: PodcastRecord) async throws
    /// Adds episodes not seen before (by guid) and updates the ones that are; returns how many were new.
    func merge(_ episodes: [ParsedEpisode], into podcastID: UUID, seenAt: Date) async throws -> Int
    func episodes(of podcastID: UUID) async throws -> [EpisodeRecord]
    func episode(_ id: UUID) async throws -> EpisodeRecord?
    func episodeCounts(_ podcastIDs: [UUID], firstSeenAfter: [UUID: Date]) async throws -> [UUID: (all: Int, new: Int)]

    func subscriptions(ownedBy user: AuthenticatedUser) async throws -> [SubscriptionRecord]
    func subscription(to podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> SubscriptionRecord?
    func subscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser, now: Date) async throws -> (SubscriptionRecord, created: Bool)
    /// Writes the person's choices (favourite, delete after played, seen until) to the subscription
    /// with the record's id (nothing when it is gone); the podcast is not written.
    func save(_ subscription: SubscriptionRecord) async throws
    func unsubscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
    /// The person's subscriptions and unsubscriptions (by feed URL) that reached the server at or
    /// after `since` (milliseconds since 1970), in order: what podcast apps ask for with `since`.
    func subscriptionChanges(ownedBy user: AuthenticatedUser, since: Int64) async throws -> [(feedURL: String, added: Bool)]
    /// The podcast's episode with this guid, or failing that the newest with this enclosure URL.
    func episode(of podcastID: UUID, enclosureURL: String, guid: String?) async throws -> EpisodeRecord?
    /// Someone who subscribes (the earliest), for work done on the podcast's behalf.
    func anySubscriber(of podcastID: UUID) async throws -> UUID?

    /// Takes up to `limit` podcasts due for refresh (with a subscriber), pushing their next
    /// refresh to `leaseUntil`; servers sharing the database never take the same one.
    func claimDue(now: Date, leaseUntil: Date, limit: Int) async throws -> [UUID]

    func download(of episodeID: UUID, ownedBy user: AuthenticatedUser) async throws -> EpisodeDownloadRecord?
    func download(_ id: UUID) async throws -> EpisodeDownloadRecord?
    func downloads(ownedBy user: AuthenticatedUser, episodes: [UUID]) async throws -> [UUID: EpisodeDownloadRecord]
    /// Writes a new download with the record's id for its owner and answers it as written.
    func create(_ download: EpisodeDownloadRecord, ownerID: UUID) async throws -> EpisodeDownloadRecord
    /// Writes the record to the download with its id (nothing when it is gone, so a download
    /// deleted while its job runs stays deleted).
    func save(_ download: EpisodeDownloadRecord) async throws
    func delete(_ download: EpisodeDownloadRecord) async throws
    /// The ids of every download the person with `ownerID` has (their files are theirs alone).
    func downloadIDs(ownerID: UUID) async throws -> [UUID]
    /// Removes the podcasts no one subscribes to any more, with their episodes; returns how many.
    func removeUnsubscribed() async throws -> Int
}

struct FluentPodcastRepository: PodcastRepository {
    let database: any Database

    func podcast(feedURL: String) async throws -> PodcastRecord? {
        try await row(feedURL: feedURL)?.record()
    }

    func podcast(_ id: UUID) async throws -> PodcastRecord? {
        try await PodcastModel.find(id, on: database)?.record()
    }

    func podcastCreating(feedURL: String, title: String, now: Date) async throws -> PodcastRecord {
        if let found = try await podcast(feedURL: feedURL) { return found }
        let made = PodcastModel(feedURL: feedURL, title: title, nextRefreshAt: now)
        do {
            try await made.create(on: database)
            return try made.record()
        } catch {
            // Two people adding the same feed at once: the other's row stands.
            if let found = try await podcast(feedURL: feedURL) { return found }
            throw error
        }
    }

    func save(_ podcast: PodcastRecord) async throws {
        guard let row = try await PodcastModel.find(podcast.id, on: database) else { return }
        row.feedURL = podcast.feedURL
        row.title = podcast.title
        row.author = podcast.author
        row.image = podcast.image
        row.link = podcast.link
        row.summary = podcast.summary
        row.etag = podcast.etag
        row.lastModified = podcast.lastModified
        row.lastRefreshedAt = podcast.lastRefreshedAt
        row.nextRefreshAt = podcast.nextRefreshAt
        row.failures = podcast.failures
        row.lastError = podcast.lastError
        row.feedRepairs = podcast.feedRepairs.isEmpty ? nil : podcast.feedRepairs.joined(separator: "\n")
        try await row.save(on: database)
    }

    private func row(feedURL: String) async throws -> PodcastModel? {
        try await PodcastModel.query(on: database).filter(\.$feedURL == feedURL).first()
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
                // "" for none (the column is required): answered as null.
                row.title = String((episode.title ?? "").prefix(1000))
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

    func episodes(of podcastID: UUID) async throws -> [EpisodeRecord] {
        try await EpisodeModel.query(on: database).filter(\.$podcast.$id == podcastID).all().map { try $0.record() }
    }

    func episode(_ id: UUID) async throws -> EpisodeRecord? {
        try await EpisodeModel.find(id, on: database)?.record()
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

    func subscriptions(ownedBy user: AuthenticatedUser) async throws -> [SubscriptionRecord] {
        try await SubscriptionModel.query(ownedBy: user, on: database).with(\.$podcast).all().map { try $0.record() }
    }

    func subscription(to podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> SubscriptionRecord? {
        try await SubscriptionModel.query(ownedBy: user, on: database).filter(\.$podcast.$id == podcastID).with(\.$podcast).first()?.record()
    }

    func subscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser, now: Date) async throws -> (SubscriptionRecord, created: Bool) {
        if let found = try await subscription(to: podcastID, ownedBy: user) { return (found, false) }
        let made = SubscriptionModel(ownerID: user.id, podcastID: podcastID, seenUntil: now)
        do {
            try await made.create(on: database)
        } catch {
            if let found = try await subscription(to: podcastID, ownedBy: user) { return (found, false) }
            throw error
        }
        if let feedURL = try await PodcastModel.find(podcastID, on: database)?.feedURL {
            try await Self.noteChange(feedURL, ownerID: user.id, added: true, on: database)
        }
        guard let written = try await subscription(to: podcastID, ownedBy: user) else {
            throw FluentError.noResults   // unsubscribed again at the same moment
        }
        return (written, true)
    }

    func save(_ subscription: SubscriptionRecord) async throws {
        guard let row = try await SubscriptionModel.find(subscription.id, on: database) else { return }
        row.favourite = subscription.favourite
        row.deleteAfterPlayed = subscription.deleteAfterPlayed
        row.seenUntil = subscription.seenUntil
        try await row.save(on: database)
    }

    func unsubscribe(_ podcastID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let found = try await SubscriptionModel.query(ownedBy: user, on: database).filter(\.$podcast.$id == podcastID).first() else { return false }
        // The feed's address read first: the podcast may go with its last subscriber at once.
        let feedURL = try await PodcastModel.find(podcastID, on: database)?.feedURL
        try await database.transaction { database in
            try await found.delete(on: database)
            if let feedURL { try await Self.noteChange(feedURL, ownerID: user.id, added: false, on: database) }
        }
        return true
    }

    func subscriptionChanges(ownedBy user: AuthenticatedUser, since: Int64) async throws -> [(feedURL: String, added: Bool)] {
        let sql = database as! any SQLDatabase
        return try await sql.raw("""
            SELECT feed_url, added FROM subscription_changes WHERE owner_id = \(bind: user.id) AND received >= \(bind: since)
            ORDER BY received, id
            """).all().map { (try $0.decode(column: "feed_url", as: String.self), try $0.decode(column: "added", as: Bool.self)) }
    }

    func episode(of podcastID: UUID, enclosureURL: String, guid: String?) async throws -> EpisodeRecord? {
        // The guid first: two episodes of a feed can share an enclosure URL, never a guid.
        if let guid, let found = try await EpisodeModel.query(on: database).filter(\.$podcast.$id == podcastID).filter(\.$guid == guid).first() {
            return try found.record()
        }
        return try await EpisodeModel.query(on: database).filter(\.$podcast.$id == podcastID)
            .filter(\.$enclosureURL == enclosureURL).sort(\.$firstSeenAt, .descending).first()?.record()
    }

    /// Keeps a subscription change in the log podcast apps read with `since` (the feed's URL, so
    /// the change outlives the podcast's row).
    private static func noteChange(_ feedURL: String, ownerID: UUID, added: Bool, on database: any Database) async throws {
        try await (database as! any SQLDatabase).raw("""
            INSERT INTO subscription_changes (id, owner_id, feed_url, added, received)
            VALUES (\(bind: UUID()), \(bind: ownerID), \(bind: feedURL), \(bind: added), \(bind: GpodderClock.milliseconds()))
            """).run()
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

    func download(of episodeID: UUID, ownedBy user: AuthenticatedUser) async throws -> EpisodeDownloadRecord? {
        try await EpisodeDownloadModel.query(ownedBy: user, on: database).filter(\.$episode.$id == episodeID).first()?.record()
    }

    func download(_ id: UUID) async throws -> EpisodeDownloadRecord? {
        try await EpisodeDownloadModel.find(id, on: database)?.record()
    }

    func downloads(ownedBy user: AuthenticatedUser, episodes: [UUID]) async throws -> [UUID: EpisodeDownloadRecord] {
        guard !episodes.isEmpty else { return [:] }
        let rows = try await EpisodeDownloadModel.query(ownedBy: user, on: database).filter(\.$episode.$id ~~ episodes).all()
        return Dictionary(try rows.map { ($0.$episode.id, try $0.record()) }, uniquingKeysWith: { first, _ in first })
    }

    func create(_ download: EpisodeDownloadRecord, ownerID: UUID) async throws -> EpisodeDownloadRecord {
        let row = EpisodeDownloadModel(ownerID: ownerID, episodeID: download.episodeID, trimSilence: download.trimSilence)
        row.id = download.id
        row.fill(from: download)
        try await row.create(on: database)
        return try row.record()
    }

    func save(_ download: EpisodeDownloadRecord) async throws {
        guard let row = try await EpisodeDownloadModel.find(download.id, on: database) else { return }
        row.fill(from: download)
        try await row.save(on: database)
    }

    func delete(_ download: EpisodeDownloadRecord) async throws {
        try await EpisodeDownloadModel.query(on: database).filter(\.$id == download.id).delete()
    }

    func downloadIDs(ownerID: UUID) async throws -> [UUID] {
        try await EpisodeDownloadModel.query(on: database).filter(\.$owner.$id == ownerID).field(\.$id).all().compactMap(\.id)
    }

    func removeUnsubscribed() async throws -> Int {
        guard let sql = database as? any SQLDatabase else { return 0 }
        return try await database.transaction { database in
            let sql = database as? any SQLDatabase ?? sql
            // Episodes first, so it works whether or not the database enforces cascades; a
            // download of an episode whose podcast goes would be someone's, so it keeps it.
            let orphans = "SELECT id FROM podcasts p WHERE NOT EXISTS (SELECT 1 FROM podcast_subscriptions s WHERE s.podcast_id = p.id)"
            try await sql.raw("""
                DELETE FROM podcast_episodes WHERE podcast_id IN (\(unsafeRaw: orphans))
                  AND NOT EXISTS (SELECT 1 FROM episode_downloads d WHERE d.episode_id = podcast_episodes.id)
                """).run()
            let removed = try await sql.raw("""
                DELETE FROM podcasts WHERE id IN (\(unsafeRaw: orphans))
                  AND NOT EXISTS (SELECT 1 FROM podcast_episodes e WHERE e.podcast_id = podcasts.id) RETURNING id
                """).all()
            return removed.count
        }
    }
}

// MARK: - Rows as values

extension PodcastModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> PodcastRecord {
        PodcastRecord(id: try requireID(), feedURL: feedURL, title: title, author: author, image: image, link: link, summary: summary,
                      etag: etag, lastModified: lastModified, lastRefreshedAt: lastRefreshedAt, nextRefreshAt: nextRefreshAt,
                      failures: failures, lastError: lastError, feedRepairs: feedRepairs.map { $0.split(separator: "\n").map(String.init) } ?? [],
                      createdAt: createdAt)
    }
}

extension EpisodeModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> EpisodeRecord {
        EpisodeRecord(id: try requireID(), podcastID: $podcast.id, guid: guid, title: title, published: published, duration: duration,
                      summary: summary, image: image, enclosureURL: enclosureURL, enclosureType: enclosureType,
                      enclosureLength: enclosureLength, chaptersURL: chaptersURL, transcripts: transcripts, firstSeenAt: firstSeenAt)
    }
}

extension SubscriptionModel {
    /// The row and its podcast as a value; the podcast must have been loaded with it.
    func record() throws -> SubscriptionRecord {
        SubscriptionRecord(id: try requireID(), podcast: try podcast.record(), favourite: favourite, deleteAfterPlayed: deleteAfterPlayed,
                           seenUntil: seenUntil, createdAt: createdAt)
    }
}

extension EpisodeDownloadModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> EpisodeDownloadRecord {
        EpisodeDownloadRecord(id: try requireID(), episodeID: $episode.id, status: EpisodeDownloadInfo.Status(rawValue: status) ?? .failed, jobID: jobID, trimSilence: trimSilence, bytes: bytes,
                              duration: duration, measuredLoudness: measuredLoudness, timeMap: timeMap, chapters: chapters, createdAt: createdAt)
    }

    /// Everything but the id, owner, episode and creation date, from the record.
    func fill(from download: EpisodeDownloadRecord) {
        status = download.status.rawValue
        jobID = download.jobID
        trimSilence = download.trimSilence
        bytes = download.bytes
        duration = download.duration
        measuredLoudness = download.measuredLoudness
        timeMap = download.timeMap
        chapters = download.chapters
    }
}
