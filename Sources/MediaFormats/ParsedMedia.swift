import Foundation

/// Everything `MediaFormats` reads from one audio file. Immutable; compare whole values in tests.
public struct ParsedMedia: Sendable, Equatable {
    /// The container the bytes were recognised as.
    public enum Format: String, Sendable, Codable, Equatable {
        /// ISO BMFF: MP4, M4A, M4B.
        case mp4
        /// MPEG audio (layer I, II or III), with or without ID3 tags.
        case mp3
    }

    public let format: Format
    /// Playing time in seconds (MP4: the sound track's `mdhd`, else `mvhd`; MP3: frames × samples
    /// per frame ÷ sample rate, from the Xing/Info/VBRI header or by counting the frames).
    public let duration: Double
    public let tags: ParsedTags
    /// The embedded cover picture, if any.
    public let artwork: ParsedArtwork?
    /// Chapters in playing order; empty when the file has none.
    public let chapters: [ParsedChapter]

    public init(format: Format, duration: Double, tags: ParsedTags, artwork: ParsedArtwork?, chapters: [ParsedChapter]) {
        self.format = format
        self.duration = duration
        self.tags = tags
        self.artwork = artwork
        self.chapters = chapters
    }
}

/// Text tags, from an MP4 `ilst` or ID3 frames. A tag the file does not carry is nil.
public struct ParsedTags: Sendable, Equatable, Codable {
    /// `©nam`, `TIT2`/`TT2`.
    public var title: String?
    /// `©ART`, `TPE1`/`TP1`.
    public var artist: String?
    /// `©alb`, `TALB`/`TAL`.
    public var album: String?
    /// `aART`, `TPE2`/`TP2`.
    public var albumArtist: String?
    /// `©day`, `TDRC`/`TYER`/`TYE`, as written (often just the year).
    public var year: String?
    /// `desc` (or `©cmt` when there is no `desc`), `COMM`.
    public var description: String?
    /// Track number within the album or book (`trkn`, `TRCK`), 1-based.
    public var track: Int?
    /// Disc number (`disk`, `TPOS`), 1-based.
    public var disc: Int?

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, albumArtist: String? = nil,
                year: String? = nil, description: String? = nil, track: Int? = nil, disc: Int? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
        self.albumArtist = albumArtist
        self.year = year
        self.description = description
        self.track = track
        self.disc = disc
    }

    /// Fills the tags this one lacks from `other` (ID3v2 first, then ID3v1).
    func filled(from other: ParsedTags) -> ParsedTags {
        ParsedTags(
            title: title ?? other.title, artist: artist ?? other.artist, album: album ?? other.album,
            albumArtist: albumArtist ?? other.albumArtist, year: year ?? other.year,
            description: description ?? other.description, track: track ?? other.track, disc: disc ?? other.disc
        )
    }
}

/// A cover picture: its bytes and MIME type (`image/jpeg`, `image/png`, …).
public struct ParsedArtwork: Sendable, Equatable {
    public let mimeType: String
    public let data: Data

    public init(mimeType: String, data: Data) {
        self.mimeType = mimeType
        self.data = data
    }
}

/// One chapter: a title and a time range in seconds from the start of the file.
public struct ParsedChapter: Sendable, Equatable, Codable {
    public let title: String
    /// Seconds from the start of the file.
    public let start: Double
    /// Seconds from the start of the file; the next chapter's start, or the file's end.
    public let end: Double

    public init(title: String, start: Double, end: Double) {
        self.title = title
        self.start = start
        self.end = end
    }
}
