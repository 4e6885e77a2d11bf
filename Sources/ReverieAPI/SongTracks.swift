import Foundation

/// A track attached to a song, to write against: one of the person's Listen music items.
public struct SongTrack: Codable, Sendable, Equatable {
    public var id: UUID
    /// The Listen music item (`/api/library/{itemID}`).
    public var itemID: UUID
    /// From the file's tags (the file's name when it has none).
    public var title: String
    public var artist: String?
    public var durationMs: Int
    /// The A–B section, once one was set.
    public var loop: SongLoopPoints?

    public init(id: UUID, itemID: UUID, title: String, artist: String?, durationMs: Int, loop: SongLoopPoints?) {
        self.id = id
        self.itemID = itemID
        self.title = title
        self.artist = artist
        self.durationMs = durationMs
        self.loop = loop
    }
}

/// A and B in seconds from the start of the track, and whether the loop is on. Saved with the
/// song (`PUT /api/compositions/{id}/tracks/{trackID}/loop`).
public struct SongLoopPoints: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var enabled: Bool

    public init(start: Double, end: Double, enabled: Bool) {
        self.start = start
        self.end = end
        self.enabled = enabled
    }
}

/// `POST /api/compositions/{id}/tracks`: attach one of your Listen music items.
public struct SongTrackAttach: Codable, Sendable, Equatable {
    public var itemID: UUID
    public init(itemID: UUID) { self.itemID = itemID }
}
