import Foundation

/// A podcast a person subscribes to.
public struct PodcastInfo: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var author: String?
    public var image: String?
    public var feedURL: String
    public var link: String?
    public var favourite: Bool
    public var deleteAfterPlayed: Bool
    /// Episodes that arrived since the person last opened the podcast.
    public var newEpisodes: Int
    public var episodeCount: Int
    public var lastRefreshed: Date?
    /// Why the last refresh failed (cleared by the next that works).
    public var lastError: String?
    public var nextRefresh: Date?
    /// What the feed needed the last time it was read (text before its declaration, stray
    /// ampersands, …), for the podcast's page; empty for a well-formed feed.
    public var feedRepairs: [String]

    public init(id: String, title: String, author: String?, image: String?, feedURL: String, link: String?, favourite: Bool,
                deleteAfterPlayed: Bool, newEpisodes: Int, episodeCount: Int, lastRefreshed: Date?, lastError: String?, nextRefresh: Date?,
                feedRepairs: [String] = []) {
        self.feedRepairs = feedRepairs
        (self.id, self.title, self.author, self.image, self.feedURL, self.link) = (id, title, author, image, feedURL, link)
        (self.favourite, self.deleteAfterPlayed, self.newEpisodes, self.episodeCount) = (favourite, deleteAfterPlayed, newEpisodes, episodeCount)
        (self.lastRefreshed, self.lastError, self.nextRefresh) = (lastRefreshed, lastError, nextRefresh)
    }
}
