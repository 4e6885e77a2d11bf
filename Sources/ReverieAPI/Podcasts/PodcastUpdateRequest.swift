import Foundation

/// `PATCH /api/podcasts/{podcastID}`: what changes (fields left out stay).
public struct PodcastUpdateRequest: Codable, Sendable, Equatable {
    public var favourite: Bool?
    /// A downloaded episode is deleted once it is played.
    public var deleteAfterPlayed: Bool?

    public init(favourite: Bool?, deleteAfterPlayed: Bool?) {
        self.favourite = favourite
        self.deleteAfterPlayed = deleteAfterPlayed
    }
}
