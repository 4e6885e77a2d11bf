import Foundation

/// `PUT /api/podcasts/podcastindex`: the owner's Podcast Index API key and secret.
public struct PodcastIndexCredentialsRequest: Codable, Sendable, Equatable {
    public var key: String
    public var secret: String

    public init(key: String, secret: String) {
        self.key = key
        self.secret = secret
    }
}
