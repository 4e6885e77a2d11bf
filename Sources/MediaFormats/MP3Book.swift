import Foundation

/// A book made of many MP3 files (a folder or zip of an audiobook's parts): the parts ordered as
/// a reader expects, and joined into one MP3 file whose chapters are the parts, so a locked phone
/// plays on without stopping at a file boundary.
///
/// Joining copies the audio frames as they are (no re-encoding): each part's tags and its
/// Xing/Info summary frame are left out, since MPEG audio is a plain sequence of frames.
public enum MP3Book {
    /// One part: its file and what `MediaFile` read from it.
    public struct Part: Sendable, Equatable {
        /// Where the file is now.
        public let path: String
        /// Its name as the person gave it (a path inside the folder or zip), for ordering and titles.
        public let name: String
        public let media: ParsedMedia

        public init(path: String, name: String? = nil, media: ParsedMedia) {
            self.path = path
            self.name = name ?? (path as NSString).lastPathComponent
            self.media = media
        }

        /// The chapter's title: the part's title tag, else its file name without the extension.
        public var title: String {
            media.tags.title ?? ((name as NSString).lastPathComponent as NSString).deletingPathExtension
        }
    }

    /// By disc number, then track number (parts without one after those with one), then natural
    /// file-name order ("2" before "10").
    public static func ordered(_ parts: [Part]) -> [Part] {
        parts.sorted { a, b in
            let discA = a.media.tags.disc ?? Int.max, discB = b.media.tags.disc ?? Int.max
            if discA != discB { return discA < discB }
            let trackA = a.media.tags.track ?? Int.max, trackB = b.media.tags.track ?? Int.max
            if trackA != trackB { return trackA < trackB }
            return a.name.localizedStandardCompare(b.name) == .orderedAscending
        }
    }

    /// Writes the parts' audio, in the order given, to `output`; one chapter per part.
    /// - Throws: `MediaFormatsError` when a part is not an MP3, or the parts' sample rates differ
    ///   (players cannot change rate in the middle of a stream).
    public static func join(_ parts: [Part], to output: String) throws -> [ParsedChapter] {
        guard !parts.isEmpty else { throw MediaFormatsError.malformed("there are no MP3 files to join") }
        guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else {
            throw MediaFormatsError.unreadable("cannot write \(output)")
        }
        defer { try? handle.close() }
        var chapters: [ParsedChapter] = []
        var start = 0.0
        var rate: Int?
        for part in parts {
            guard part.media.format == .mp3 else {
                throw MediaFormatsError.malformed("\(part.name) is not an MP3 file")
            }
            let source = try FileByteSource(path: part.path)
            let layout = try MP3Reader.layout(source)
            if let rate, rate != layout.header.sampleRate {
                throw MediaFormatsError.malformed("the parts have different sample rates (\(rate) and \(layout.header.sampleRate) Hz); convert them to one rate first")
            }
            rate = layout.header.sampleRate
            var offset = layout.firstFrame + (layout.startsWithSummary ? Int64(layout.header.length) : 0)
            while offset < layout.audioEnd {
                let block = try source.bytes(at: offset, count: Int(min(Int64(1 << 20), layout.audioEnd - offset)))
                guard !block.isEmpty else { break }
                try handle.write(contentsOf: block)
                offset += Int64(block.count)
            }
            chapters.append(ParsedChapter(title: part.title, start: start, end: start + part.media.duration))
            start += part.media.duration
        }
        return chapters
    }
}
