import Foundation

/// A Listen music item attached to a song, as the `song_tracks` table holds it: what
/// `SongTrackRepository` answers, a value that knows nothing of the database (see
/// `SongTrackModel` for the row it is read from).
public struct SongTrackRecord: Sendable, Equatable {
    public var id: UUID
    /// The song (a composition) the track is attached to.
    public var compositionID: UUID
    /// The Listen music item.
    public var itemID: UUID
    /// Where the A–B loop starts, in seconds; set with `loopEnd` or not at all.
    public var loopStart: Double?
    /// Where the A–B loop ends, in seconds.
    public var loopEnd: Double?
    /// Whether the player repeats the loop.
    public var loopEnabled: Bool
}
