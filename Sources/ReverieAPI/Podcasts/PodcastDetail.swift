import Foundation

/// `GET /api/podcasts/{podcastID}`: the podcast and its episodes, newest first.
public struct PodcastDetail: Codable, Sendable, Equatable {
    public var podcast: PodcastInfo
    public var description: String?
    public var episodes: [EpisodeInfo]

    public init(podcast: PodcastInfo, description: String?, episodes: [EpisodeInfo]) {
        self.podcast = podcast
        self.description = description
        self.episodes = episodes
    }
}
