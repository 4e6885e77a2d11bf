import Foundation

/// `POST /api/episodes/{episodeID}/download`.
public struct EpisodeDownloadRequest: Codable, Sendable, Equatable {
    /// Shorten long silences (conservatively: never into speech, even on a quietly mixed show).
    public var trimSilence: Bool?

    public init(trimSilence: Bool?) {
        self.trimSilence = trimSilence
    }
}
