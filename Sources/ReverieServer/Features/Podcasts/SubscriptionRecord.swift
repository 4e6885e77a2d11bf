import Foundation

/// A person's subscription to a podcast as the `podcast_subscriptions` table holds it, with the
/// podcast it is to: what `PodcastRepository` answers, a value that knows nothing of the database
/// (see `SubscriptionModel` for the row it is read from).
public struct SubscriptionRecord: Sendable, Equatable {
    public var id: UUID
    public var podcast: PodcastRecord
    public var favourite: Bool
    public var deleteAfterPlayed: Bool
    /// Episodes first seen after this are new to the person.
    public var seenUntil: Date
    /// When the person subscribed; nil only before it is written.
    public var createdAt: Date?
}
