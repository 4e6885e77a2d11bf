import Feeds
import Foundation
import ReverieAPI

/// The answers of the podcast directories read into our values: the iTunes Search API's and
/// Podcast Index's. A result with no http(s) feed (Apple-only shows) is left out: nothing Reverie
/// can subscribe to.
public enum PodcastDirectoryAnswer {
    /// `GET <itunes>/search?media=podcast&entity=podcast&term=…`.
    public static func itunes(_ data: Data) throws -> [PodcastFound] {
        struct Answer: Decodable {
            struct Result: Decodable {
                var collectionName: String?
                var trackName: String?
                var artistName: String?
                var feedUrl: String?
                var artworkUrl600: String?
                var artworkUrl100: String?
                var trackCount: Int?
            }
            var results: [Result]
        }
        return try JSONDecoder().decode(Answer.self, from: data).results.compactMap { result in
            guard let feed = FeedParser.absoluteURL(result.feedUrl) else { return nil }
            return PodcastFound(title: PlainText.line(result.collectionName ?? result.trackName ?? feed), author: result.artistName.map(PlainText.line),
                                feedURL: feed, artwork: FeedParser.absoluteURL(result.artworkUrl600 ?? result.artworkUrl100),
                                episodeCount: result.trackCount, source: "itunes")
        }
    }

    /// `GET <podcastindex>/api/1.0/search/byterm?q=…`.
    public static func podcastIndex(_ data: Data) throws -> [PodcastFound] {
        struct Answer: Decodable {
            struct Feed: Decodable {
                var title: String?
                var author: String?
                var url: String?
                var image: String?
                var artwork: String?
                var episodeCount: Int?
            }
            var feeds: [Feed]?
        }
        return try (JSONDecoder().decode(Answer.self, from: data).feeds ?? []).compactMap { feed in
            guard let url = FeedParser.absoluteURL(feed.url) else { return nil }
            return PodcastFound(title: PlainText.line(feed.title ?? url), author: feed.author.map(PlainText.line).flatMap { $0.isEmpty ? nil : $0 },
                                feedURL: url, artwork: FeedParser.absoluteURL(feed.artwork ?? feed.image), episodeCount: feed.episodeCount,
                                source: "podcastindex")
        }
    }
}
