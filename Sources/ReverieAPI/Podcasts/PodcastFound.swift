import Foundation

/// A podcast found by a directory search (iTunes or Podcast Index), before subscribing.
public struct PodcastFound: Codable, Sendable, Equatable {
    public var title: String
    public var author: String?
    public var feedURL: String
    public var artwork: String?
    public var episodeCount: Int?
    /// `itunes` or `podcastindex`.
    public var source: String

    public init(title: String, author: String?, feedURL: String, artwork: String?, episodeCount: Int?, source: String) {
        (self.title, self.author, self.feedURL, self.artwork, self.episodeCount, self.source) = (title, author, feedURL, artwork, episodeCount, source)
    }
}
