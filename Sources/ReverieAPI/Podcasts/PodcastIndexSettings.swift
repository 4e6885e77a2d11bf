import Foundation

/// `GET /api/podcasts/podcastindex`: whether search also asks Podcast Index.
public struct PodcastIndexSettings: Codable, Sendable, Equatable {
    public var configured: Bool
    /// The key (the secret is never shown).
    public var key: String?

    public init(configured: Bool, key: String?) {
        self.configured = configured
        self.key = key
    }
}
