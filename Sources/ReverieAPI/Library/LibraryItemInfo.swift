import Foundation

/// A book or a music track in a person's Listen library.
public struct LibraryItemInfo: Codable, Sendable, Equatable {
    public var id: String
    /// `book` or `music`.
    public var kind: String
    public var title: String
    /// The artist, or a book's author (from the file's tags).
    public var author: String?
    public var album: String?
    public var year: String?
    /// Track and disc number from the tags, for ordering an album.
    public var track: Int?
    public var disc: Int?
    /// Seconds.
    public var duration: Double
    /// `mp4` or `mp3`.
    public var format: String
    public var byteSize: Int
    /// The name the file was uploaded with.
    public var originalName: String?
    /// `/api/library/{id}/audio`, with Range.
    public var audioURL: String
    /// `/api/library/{id}/artwork` (a 512 px JPEG thumbnail of the cover), nil without a cover.
    public var artworkURL: String?
    /// A book's chapters (time ranges in its one file); empty for music, and in the library's
    /// list, which carries only their summary (`chapterCount`, `chaptersPlayed`): a book's page has them.
    public var chapters: [LibraryChapter]
    /// How many chapters the book has, and how many of them the person has heard.
    public var chapterCount: Int
    public var chaptersPlayed: Int
    public var createdAt: Date?
    /// Where the person is in the whole file (the shared progress log's `library:<id>`), nil before
    /// anything was heard.
    public var progress: LibraryProgress?

    public init(id: String, kind: String, title: String, author: String?, album: String?, year: String?, track: Int?, disc: Int?,
                duration: Double, format: String, byteSize: Int, originalName: String?, audioURL: String, artworkURL: String?,
                chapters: [LibraryChapter], chapterCount: Int? = nil, chaptersPlayed: Int? = nil, createdAt: Date?, progress: LibraryProgress? = nil) {
        self.id = id
        self.kind = kind
        self.title = title
        self.author = author
        self.album = album
        self.year = year
        self.track = track
        self.disc = disc
        self.duration = duration
        self.format = format
        self.byteSize = byteSize
        self.originalName = originalName
        self.audioURL = audioURL
        self.artworkURL = artworkURL
        self.chapters = chapters
        self.chapterCount = chapterCount ?? chapters.count
        self.chaptersPlayed = chaptersPlayed ?? chapters.filter(\.played).count
        self.createdAt = createdAt
        self.progress = progress
    }
}
