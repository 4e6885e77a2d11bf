import Foundation

/// A podcast feed as the `podcasts` table holds it (kept once however many people subscribe):
/// what `PodcastRepository` answers, a value that knows nothing of the database (see
/// `PodcastModel` for the row it is read from).
public struct PodcastRecord: Sendable, Equatable {
    public var id: UUID
    /// The address it is fetched from (after a permanent redirect, the new one).
    public var feedURL: String
    public var title: String
    public var author: String?
    public var image: String?
    public var link: String?
    /// The feed's description, as plain text.
    public var summary: String?
    /// For conditional GET: what the server sent last time.
    public var etag: String?
    public var lastModified: String?
    public var lastRefreshedAt: Date?
    /// When it is next due.
    public var nextRefreshAt: Date
    /// Refreshes that failed in a row (the back-off doubles with each).
    public var failures: Int
    public var lastError: String?
    /// What the feed needed the last time it was read (`FeedRepair`'s words), none when well-formed.
    public var feedRepairs: [String] = []
    /// When Reverie first saw it; nil only before it is written.
    public var createdAt: Date?
}
