import Foundation

/// One episode of a podcast as the `podcast_episodes` table holds it (as its feed last described
/// it): what `PodcastRepository` answers, a value that knows nothing of the database (see
/// `EpisodeModel` for the row it is read from).
public struct EpisodeRecord: Sendable, Equatable {
    public var id: UUID
    public var podcastID: UUID
    /// The feed's guid (or what stands for it): how a refresh knows an episode again.
    public var guid: String
    /// "" when the feed gives none (the API answers null).
    public var title: String
    public var published: Date?
    /// In seconds, as the feed gives it.
    public var duration: Double?
    /// The episode's description, as plain text.
    public var summary: String?
    public var image: String?
    public var enclosureURL: String?
    public var enclosureType: String?
    /// In bytes, as the feed gives it.
    public var enclosureLength: Int?
    /// `podcast:chapters` URL.
    public var chaptersURL: String?
    /// `podcast:transcript` links as JSON `[{"url", "type", "language"}]`.
    public var transcripts: String
    /// When Reverie first saw it (what "new" is measured by).
    public var firstSeenAt: Date
}

extension EpisodeRecord {
    /// The title as messages show it: "Untitled episode" where the feed gives none.
    var shownTitle: String { title.isEmpty ? "Untitled episode" : title }
}
