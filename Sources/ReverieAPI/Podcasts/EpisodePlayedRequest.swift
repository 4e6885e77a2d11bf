import Foundation

/// `POST /api/episodes/{episodeID}/played`.
public struct EpisodePlayedRequest: Codable, Sendable, Equatable {
    public var played: Bool
    /// Which device marks it (for the listening log).
    public var device: String?

    public init(played: Bool, device: String?) {
        self.played = played
        self.device = device
    }
}
