import Foundation

/// A track attached to a song, to write against: one of the person's Listen music items.
public struct SongTrack: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    /// The Listen music item (`/api/library/{itemID}`).
    @LowercaseID public var itemID: UUID
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
