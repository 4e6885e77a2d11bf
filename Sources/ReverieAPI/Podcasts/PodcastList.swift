import Foundation

/// `GET /api/podcasts`: favourites first, then by title.
public struct PodcastList: Codable, Sendable, Equatable {
    public var podcasts: [PodcastInfo]

    public init(podcasts: [PodcastInfo]) {
        self.podcasts = podcasts
    }
}
