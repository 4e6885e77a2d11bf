import Foundation
import ReverieAPI

/// A book or music track in a person's Listen library, as the `library_items` table holds it:
/// what `LibraryRepository` answers, a value that knows nothing of the database (see
/// `LibraryItemModel` for the row it is read from).
public struct LibraryItemRecord: Sendable, Equatable {
    public var id: UUID
    /// `book` or `music`.
    public var kind: String
    public var title: String
    public var author: String?
    public var album: String?
    public var year: String?
    public var track: Int?
    public var disc: Int?
    /// Length in milliseconds.
    public var durationMs: Int
    /// `mp4` or `mp3`.
    public var format: String
    /// SHA-256 of the file, hex; the file is `<hash>.<format's extension>`.
    public var fileHash: String
    /// Size of the file in bytes.
    public var byteSize: Int
    public var originalName: String?
    /// SHA-256 of the cover picture; its thumbnail is `<data>/media/artwork/<hash>.jpg`.
    public var artworkHash: String?
    /// Title, time range and readers of each chapter, each unplayed: whether a person heard one
    /// is theirs, in the progress log, never here. Empty for music.
    public var chapters: [LibraryChapter]
    /// Nil only before the store has written it.
    public var createdAt: Date?
}
