import Foundation

/// `POST /api/podcasts`: subscribe to a feed by its address.
public struct PodcastSubscribeRequest: Codable, Sendable, Equatable {
    public var feedURL: String

    public init(feedURL: String) {
        self.feedURL = feedURL
    }
}
