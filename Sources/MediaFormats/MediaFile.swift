import Foundation

/// The one entry point: sniffs the format from the bytes (never from the file name) and reads
/// duration, tags, artwork and chapters.
public enum MediaFile {
    /// Reads the file at `path`, touching only the parts it needs.
    /// - Throws: `MediaFormatsError`; never traps on damaged or hostile input.
    public static func parse(path: String) throws -> ParsedMedia {
        try parse(FileByteSource(path: path))
    }

    /// Reads a file already in memory.
    public static func parse(data: Data) throws -> ParsedMedia {
        try parse(MemoryByteSource(data))
    }

    /// Reads any random-access source.
    public static func parse(_ source: ByteSource) throws -> ParsedMedia {
        switch try sniff(source) {
        case .mp4: try MP4Reader.parse(source)
        case .mp3: try MP3Reader.parse(source)
        }
    }

    /// Which reader the bytes belong to.
    /// - Throws: `MediaFormatsError.unsupportedFormat` for anything else (WAV, Ogg, text, images…).
    public static func sniff(_ source: ByteSource) throws -> ParsedMedia.Format {
        let head = try source.bytes(at: 0, count: 16)
        if MP4Reader.sniff(head) { return .mp4 }
        if MP3Reader.sniff(head) { return .mp3 }
        throw MediaFormatsError.unsupportedFormat
    }
}

/// Chapter starts made into closed ranges.
enum ChapterRanges {
    /// Orders the starts (a stable sort: files list them in any order), and ends each chapter at
    /// the next one's start and the last at `duration` (never before its own start). Chapters
    /// that start at or past the end of a file with a length are dropped (a file whose chapters
    /// outrun its sound: the first is kept, from 0).
    static func closed(_ starts: [(title: String, start: Double)], duration: Double) -> [ParsedChapter] {
        var ordered = starts.enumerated()
            .map { (index: $0.offset, title: $0.element.title, start: max(0, $0.element.start.isFinite ? $0.element.start : 0)) }
            .sorted { ($0.start, $0.index) < ($1.start, $1.index) }
        if duration > 0, ordered.contains(where: { $0.start >= duration }) {
            let inside = ordered.filter { $0.start < duration }
            ordered = inside.isEmpty ? [(index: ordered[0].index, title: ordered[0].title, start: 0)] : inside
        }
        return ordered.enumerated().map { position, chapter in
            let end = position + 1 < ordered.count ? ordered[position + 1].start : max(chapter.start, duration)
            return ParsedChapter(title: chapter.title, start: chapter.start, end: end)
        }
    }
}
