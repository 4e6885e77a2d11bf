import Foundation

/// An episode of a podcast, with the person's place in it.
public struct EpisodeInfo: Codable, Sendable, Equatable {
    public var id: String
    public var podcastID: String
    /// Nil when the feed gives the episode none.
    public var title: String?
    public var published: Date?
    /// Seconds, as the feed says.
    public var duration: Double?
    public var description: String?
    public var image: String?
    public var enclosureURL: String?
    public var enclosureType: String?
    public var enclosureLength: Int?
    public var hasChapters: Bool
    public var hasTranscript: Bool
    /// Arrived since the person last opened the podcast.
    public var isNew: Bool
    /// Heard to its natural end, or to 95%, or marked so.
    public var played: Bool
    /// Seconds into the episode (of the original), from the listening log.
    public var position: Double?
    public var download: EpisodeDownloadInfo?

    public init(id: String, podcastID: String, title: String?, published: Date?, duration: Double?, description: String?, image: String?,
                enclosureURL: String?, enclosureType: String?, enclosureLength: Int?, hasChapters: Bool, hasTranscript: Bool,
                isNew: Bool, played: Bool, position: Double?, download: EpisodeDownloadInfo?) {
        (self.id, self.podcastID, self.title, self.published, self.duration, self.description, self.image) = (id, podcastID, title, published, duration, description, image)
        (self.enclosureURL, self.enclosureType, self.enclosureLength) = (enclosureURL, enclosureType, enclosureLength)
        (self.hasChapters, self.hasTranscript, self.isNew, self.played, self.position, self.download) = (hasChapters, hasTranscript, isNew, played, position, download)
    }
}
