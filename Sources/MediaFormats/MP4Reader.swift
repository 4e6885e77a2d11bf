import Foundation

/// Reads MP4, M4A and M4B files (ISO/IEC 14496-12, the ISO base media file format, with Apple's
/// `ilst` metadata and the two chapter forms players use).
///
/// Nothing from the file is trusted: every box size is checked against its parent, nesting depth
/// and box counts are capped, and the `moov` box (the only one read whole) has a size cap.
enum MP4Reader {
    /// The `moov` box is read into memory; larger than this and we refuse (a 40-hour book's is ~20 MB).
    static let maxMovieBytes = 96 << 20
    static let maxDepth = 12
    static let maxTopLevelBoxes = 100_000
    static let maxBoxesInMovie = 500_000
    static let maxChapters = 10_000
    static let maxChapterSampleBytes = 64 << 10

    /// Whether `head` (the first bytes of a file) look like ISO BMFF: a first box whose type is one
    /// that starts such files.
    static func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        let type = FourCC(head, 4)
        return [FourCC("ftyp"), FourCC("moov"), FourCC("mdat"), FourCC("free"), FourCC("wide"), FourCC("skip")].contains(type)
    }

    static func parse(_ source: ByteSource) throws -> ParsedMedia {
        let movie = try readMovie(source)
        var walker = BoxWalker(bytes: movie)
        let parts = try walker.movie()
        // The headers' length, unless the sound's own frames say less (a file whose headers lie,
        // or one cut short: it is what it holds).
        var duration = parts.duration
        if let sound = parts.tracks.first(where: { $0.handler == FourCC("soun") }),
           let held = try? heldDuration(sound, movieTimescale: parts.timescale, in: movie, fileSize: source.size) {
            guard held > 0 else { throw MediaFormatsError.malformed("none of its sound's frames is in the file (it is cut short)") }
            if held < duration - Self.lengthTolerance || duration <= 0 { duration = held }
        }
        var chapters: [ParsedChapter] = []
        // A QuickTime chapter track is what Apple's players show; Nero `chpl` is the fallback.
        if let reference = parts.tracks.lazy.flatMap(\.chapterTrackIDs).first,
           let track = parts.tracks.first(where: { $0.id == reference }) {
            chapters = try chapterTrack(track, in: movie, source: source, duration: duration)
        }
        if chapters.isEmpty {
            chapters = ChapterRanges.closed(parts.neroChapters, duration: duration)
        }
        // A book of length 0 is not a book: a container with no sound is refused.
        guard parts.tracks.contains(where: { $0.handler == FourCC("soun") }) else { throw MediaFormatsError.noAudio }
        return ParsedMedia(format: .mp4, duration: duration, tags: parts.tags, artwork: parts.artwork, chapters: chapters)
    }

    /// How far a header's length may exceed its frames' before the frames' is taken (encoders
    /// round; an edit list may end inside the last frame).
    static let lengthTolerance = 0.5

    // MARK: - The sound's own length

    /// Seconds of the sound track's frames that lie whole inside the file: its time-to-sample table
    /// summed over the frames the sample-to-chunk table and the chunk offsets place before the
    /// file's end, less the priming the edit list hides (and no more than the edit lasts). Read
    /// frame by frame with nothing kept, so a table of any size costs no memory.
    /// - Throws: `MediaFormatsError` when the tables cannot be read (the headers' length stands).
    static func heldDuration(_ track: Track, movieTimescale: UInt32, in movie: [UInt8], fileSize: Int64) throws -> Double {
        guard track.timescale > 0, let table = track.sampleTable, let stsz = table.stsz, let stsc = table.stsc, let chunkTable = table.chunkOffsets else {
            throw MediaFormatsError.malformed("the sound track does not say where its frames are")
        }
        var sizes = ByteCursor(movie, from: stsz.lowerBound, to: stsz.upperBound)
        try sizes.skip(4, "the sample sizes")
        let fixed = try sizes.u32("the sample sizes"), count = Int(try sizes.u32("the sample sizes"))
        // (A fragmented file lists its frames in its fragments, not here: its headers stand.)
        guard count > 0 else { throw MediaFormatsError.malformed("the sound track lists no frames in its movie box") }
        var chunks = ByteCursor(movie, from: chunkTable.range.lowerBound, to: chunkTable.range.upperBound)
        try chunks.skip(4, "the chunk offsets")
        let chunkCount = Int(try chunks.u32("the chunk offsets"))
        var runs = ByteCursor(movie, from: stsc.lowerBound, to: stsc.upperBound)
        try runs.skip(4, "the sample-to-chunk table")
        let runCount = Int(try runs.u32("the sample-to-chunk table"))
        var run = (first: Int(try runs.u32("the sample-to-chunk table")), frames: Int(try runs.u32("the sample-to-chunk table")))
        try runs.skip(4, "the sample-to-chunk table")
        var runsLeft = runCount - 1
        var next: (first: Int, frames: Int)? = nil
        func nextRun() throws {
            next = nil
            guard runsLeft > 0 else { return }
            next = (Int(try runs.u32("the sample-to-chunk table")), Int(try runs.u32("the sample-to-chunk table")))
            try runs.skip(4, "the sample-to-chunk table")
            runsLeft -= 1
        }
        try nextRun()
        // The frames whole inside the file, in chunk order.
        var held = 0
        try chunks.require(chunkCount * (chunkTable.is64 ? 8 : 4), "the chunk offsets")
        try runs.require((runCount - 1) * 12, "the sample-to-chunk table")
        chunkLoop: for number in stride(from: 1, through: chunkCount, by: 1) {
            guard held < count else { break }
            var offset = Int64(chunkTable.is64 ? try chunks.u64("the chunk offsets") & UInt64(Int64.max) : UInt64(try chunks.u32("the chunk offsets")))
            while let upcoming = next, upcoming.first <= number {
                run = upcoming
                try nextRun()
            }
            guard run.first <= number else { continue }
            let inChunk = min(run.frames, count - held)
            if fixed != 0 {
                // One size for all: the chunk's frames at once (a count of billions costs nothing).
                let fitting = offset > fileSize ? 0 : Int(min(Int64(inChunk), (fileSize - offset) / Int64(fixed)))
                held += fitting
                if fitting < inChunk { break chunkLoop }
                continue
            }
            for _ in 0..<inChunk {
                let size = Int64(try sizes.u32("the sample sizes"))
                guard offset <= fileSize - size else { break chunkLoop }
                offset += size
                held += 1
            }
        }
        // Their time.
        var times = ByteCursor(movie, from: table.stts.lowerBound, to: table.stts.upperBound)
        try times.skip(4, "the frame times")
        let entries = Int(try times.u32("the frame times"))
        try times.require(entries * 8, "the frame times")
        var frames = 0, ticks: Int64 = 0
        for _ in 0..<entries {
            guard frames < held else { break }
            let inRun = min(Int(try times.u32("the frame times")), held - frames), delta = Int64(try times.u32("the frame times"))
            frames += inRun
            let (span, overflow) = Int64(inRun).multipliedReportingOverflow(by: delta)
            guard !overflow, span <= Int64.max - ticks else { throw MediaFormatsError.tooLarge("its frames' times add up past any length") }
            ticks += span
        }
        return Double(track.heard(ticks, movieTimescale: movieTimescale).heard) / Double(track.timescale)
    }

    // MARK: - Top level

    /// Walks the top-level boxes by their headers (no payload is read) and returns the `moov` payload.
    private static func readMovie(_ source: ByteSource) throws -> [UInt8] {
        var offset: Int64 = 0
        var count = 0
        while offset >= 0, source.size - offset >= 8 {  // (not `offset + 8`: a box may claim a size near 2^63)
            count += 1
            guard count <= maxTopLevelBoxes else { throw MediaFormatsError.tooLarge("more than \(maxTopLevelBoxes) top-level boxes") }
            let header = try source.bytes(at: offset, count: 16)
            guard header.count >= 8 else { break }
            let size32 = ByteCursor.u32(header, 0)
            let type = FourCC(header, 4)
            var headerLength: Int64 = 8
            var boxSize: Int64
            switch size32 {
            case 0: boxSize = source.size - offset  // to the end of the file
            case 1:
                guard header.count >= 16 else { throw MediaFormatsError.malformed("box '\(type)' is cut short") }
                let large = UInt64(ByteCursor.u32(header, 8)) << 32 | UInt64(ByteCursor.u32(header, 12))
                guard large <= UInt64(Int64.max) else { throw MediaFormatsError.malformed("box '\(type)' claims an impossible size") }
                boxSize = Int64(large)
                headerLength = 16
            default: boxSize = Int64(size32)
            }
            guard boxSize >= headerLength else {
                throw MediaFormatsError.malformed("box '\(type)' at byte \(offset) claims \(boxSize) bytes, less than its own header")
            }
            if type == FourCC("moov") {
                let payload = boxSize - headerLength
                guard payload <= maxMovieBytes else {
                    throw MediaFormatsError.tooLarge("the 'moov' box holds \(payload) bytes (at most \(maxMovieBytes))")
                }
                let bytes = try source.bytes(at: offset + headerLength, count: Int(payload))
                guard bytes.count == Int(payload) else { throw MediaFormatsError.malformed("the 'moov' box is cut short") }
                return bytes
            }
            guard boxSize <= Int64.max - offset else { break }
            offset += boxSize
        }
        throw MediaFormatsError.malformed("there is no 'moov' box (the file was not finished being written)")
    }

    // MARK: - Chapter track

    /// Chapters from a QuickTime chapter track: a text track whose samples are the titles and whose
    /// sample times are the starts (QuickTime File Format, "Chapter lists").
    private static func chapterTrack(_ track: Track, in movie: [UInt8], source: ByteSource, duration: Double) throws -> [ParsedChapter] {
        guard let table = track.sampleTable, track.timescale > 0 else { return [] }
        var times: [UInt64] = []
        var cursor = ByteCursor(movie, from: table.stts.lowerBound, to: table.stts.upperBound)
        try cursor.skip(4, "the chapter track's time table")
        let entries = try cursor.u32("the chapter track's time table")
        var time: UInt64 = 0
        for _ in 0..<entries {
            let count = try cursor.u32("the chapter track's time table"), delta = try cursor.u32("the chapter track's time table")
            guard times.count + Int(count) <= maxChapters else { throw MediaFormatsError.tooLarge("more than \(maxChapters) chapters") }
            for _ in 0..<count {
                times.append(time)
                time &+= UInt64(delta)
            }
        }
        let sizes = try sampleSizes(table, movie, count: times.count)
        let offsets = try sampleOffsets(table, movie, sizes: sizes)
        var chapters: [(title: String, start: Double)] = []
        for index in times.indices {
            let sample = try source.bytes(at: offsets[index], count: min(sizes[index], maxChapterSampleBytes))
            chapters.append((title: chapterTitle(sample), start: Double(times[index]) / Double(track.timescale)))
        }
        return ChapterRanges.closed(chapters, duration: duration)
    }

    /// A text sample: a 16-bit length, then UTF-8 or (with a byte-order mark) UTF-16 text.
    private static func chapterTitle(_ sample: [UInt8]) -> String {
        guard sample.count >= 2 else { return "" }
        let length = min(Int(sample[0]) << 8 | Int(sample[1]), sample.count - 2)
        let text = sample[2..<2 + length]
        if text.count >= 2, (text.first == 0xFE && text.dropFirst().first == 0xFF) || (text.first == 0xFF && text.dropFirst().first == 0xFE) {
            return TextDecoding.cleaned(TextDecoding.utf16(text)) ?? ""
        }
        return TextDecoding.cleaned(TextDecoding.utf8(text)) ?? ""
    }

    private static func sampleSizes(_ table: SampleTable, _ movie: [UInt8], count: Int) throws -> [Int] {
        guard let stsz = table.stsz else { throw MediaFormatsError.malformed("the chapter track has no sample sizes") }
        var cursor = ByteCursor(movie, from: stsz.lowerBound, to: stsz.upperBound)
        try cursor.skip(4, "the chapter track's sample sizes")
        let fixed = try cursor.u32("the chapter track's sample sizes")
        let listed = try cursor.u32("the chapter track's sample sizes")
        guard Int(listed) >= count else { throw MediaFormatsError.malformed("the chapter track lists fewer sample sizes than samples") }
        if fixed != 0 { return Array(repeating: Int(fixed), count: count) }
        return try (0..<count).map { _ in Int(try cursor.u32("the chapter track's sample sizes")) }
    }

    /// Each sample's file offset, from the sample-to-chunk runs and the chunk offsets.
    private static func sampleOffsets(_ table: SampleTable, _ movie: [UInt8], sizes: [Int]) throws -> [Int64] {
        guard let stsc = table.stsc, let chunkTable = table.chunkOffsets else {
            throw MediaFormatsError.malformed("the chapter track does not say where its samples are")
        }
        var chunks: [Int64] = []
        var cursor = ByteCursor(movie, from: chunkTable.range.lowerBound, to: chunkTable.range.upperBound)
        try cursor.skip(4, "the chapter track's chunk offsets")
        let chunkCount = try cursor.u32("the chapter track's chunk offsets")
        guard Int(chunkCount) <= maxChapters else { throw MediaFormatsError.tooLarge("more than \(maxChapters) chapter chunks") }
        for _ in 0..<chunkCount {
            let offset = chunkTable.is64 ? try cursor.u64("the chapter track's chunk offsets") : UInt64(try cursor.u32("the chapter track's chunk offsets"))
            guard offset <= UInt64(Int64.max) else { throw MediaFormatsError.malformed("a chapter chunk lies past any possible file end") }
            chunks.append(Int64(offset))
        }
        var runs: [(firstChunk: Int, samples: Int)] = []
        var runCursor = ByteCursor(movie, from: stsc.lowerBound, to: stsc.upperBound)
        try runCursor.skip(4, "the chapter track's sample-to-chunk table")
        let runCount = try runCursor.u32("the chapter track's sample-to-chunk table")
        guard Int(runCount) <= maxChapters else { throw MediaFormatsError.tooLarge("more than \(maxChapters) sample-to-chunk runs") }
        for _ in 0..<runCount {
            let first = try runCursor.u32("the chapter track's sample-to-chunk table")
            let samples = try runCursor.u32("the chapter track's sample-to-chunk table")
            try runCursor.skip(4, "the chapter track's sample-to-chunk table")
            runs.append((firstChunk: Int(first), samples: Int(samples)))
        }
        var offsets: [Int64] = []
        offsets.reserveCapacity(sizes.count)
        var run = 0
        for (chunkIndex, chunkStart) in chunks.enumerated() where offsets.count < sizes.count {
            let chunkNumber = chunkIndex + 1
            while run + 1 < runs.count, runs[run + 1].firstChunk <= chunkNumber { run += 1 }
            guard run < runs.count, runs[run].firstChunk <= chunkNumber else { continue }
            var position = chunkStart
            for _ in 0..<min(runs[run].samples, sizes.count - offsets.count) {
                offsets.append(position)
                position = position &+ Int64(sizes[offsets.count - 1])
            }
        }
        guard offsets.count == sizes.count else { throw MediaFormatsError.malformed("the chapter track's chunks hold fewer samples than it lists") }
        return offsets
    }
}

// MARK: - Inside the movie

/// A four-character box type, compared as a number.
struct FourCC: Equatable, Hashable, CustomStringConvertible {
    let value: UInt32

    init(_ text: StaticString) {
        let pointer = text.utf8Start
        value = UInt32(pointer[0]) << 24 | UInt32(pointer[1]) << 16 | UInt32(pointer[2]) << 8 | UInt32(pointer[3])
    }

    /// `©nam`-style types begin with byte 0xA9, which is not one UTF-8 byte.
    init(copyright rest: StaticString) {
        let pointer = rest.utf8Start
        value = 0xA9 << 24 | UInt32(pointer[0]) << 16 | UInt32(pointer[1]) << 8 | UInt32(pointer[2])
    }

    init(_ bytes: [UInt8], _ at: Int) {
        value = ByteCursor.u32(bytes, at)
    }

    var description: String {
        TextDecoding.latin1([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}

struct SampleTable {
    var stts: Range<Int>
    /// The sample descriptions (`stsd`): the codec and its configuration.
    var stsd: Range<Int>?
    var stsz: Range<Int>?
    var stsc: Range<Int>?
    var chunkOffsets: (range: Range<Int>, is64: Bool)?
}

struct Track {
    var id: UInt32 = 0
    var handler: FourCC?
    var timescale: UInt32 = 0
    var duration: UInt64 = 0
    var chapterTrackIDs: [UInt32] = []
    var sampleTable: SampleTable?
    /// The edit list's first edit that shows the media: where in the media it starts (the
    /// encoder's priming before it is not heard) and how long it lasts, in the movie's timescale.
    var edit: (mediaTime: Int64, duration: UInt64)?

    /// Of `ticks` of frames, the priming the edit list hides and what is heard after it (no more
    /// than the edit lasts, which is in the movie's timescale), in the track's timescale.
    func heard(_ ticks: Int64, movieTimescale: UInt32) -> (priming: Int64, heard: Int64) {
        guard let edit, timescale > 0 else { return (0, ticks) }
        let priming = min(max(0, edit.mediaTime), ticks)
        var heard = ticks - priming
        if movieTimescale > 0, edit.duration > 0, edit.duration < UInt64(Int64.max) / UInt64(timescale) {
            heard = min(heard, Int64(edit.duration) * Int64(timescale) / Int64(movieTimescale))
        }
        return (priming, heard)
    }
}

struct MovieParts {
    var timescale: UInt32 = 0
    var movieDuration: UInt64 = 0
    var tracks: [Track] = []
    var neroChapters: [(title: String, start: Double)] = []
    var tags = ParsedTags()
    var artwork: ParsedArtwork?

    /// The presentation's length (`mvhd`, which counts edit lists), else the sound track's own.
    var duration: Double {
        if timescale > 0, movieDuration > 0, movieDuration != UInt64(UInt32.max), movieDuration != UInt64.max {
            return Double(movieDuration) / Double(timescale)
        }
        if let sound = tracks.first(where: { $0.handler == FourCC("soun") && $0.timescale > 0 }) {
            return Double(sound.duration) / Double(sound.timescale)
        }
        return 0
    }
}

/// Walks the boxes inside `moov`, each child checked to lie inside its parent.
struct BoxWalker {
    let bytes: [UInt8]
    private var visited = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    struct Box {
        let type: FourCC
        /// The payload: after the header, up to the box's end.
        let payload: Range<Int>
    }

    mutating func children(of range: Range<Int>, depth: Int) throws -> [Box] {
        guard depth <= MP4Reader.maxDepth else { throw MediaFormatsError.tooLarge("boxes nested more than \(MP4Reader.maxDepth) deep") }
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            visited += 1
            guard visited <= MP4Reader.maxBoxesInMovie else { throw MediaFormatsError.tooLarge("more than \(MP4Reader.maxBoxesInMovie) boxes in 'moov'") }
            let size32 = ByteCursor.u32(bytes, offset)
            let type = FourCC(bytes, offset + 4)
            var header = 8
            var size: Int
            switch size32 {
            case 0: size = range.upperBound - offset
            case 1:
                guard offset + 16 <= range.upperBound else { throw MediaFormatsError.malformed("box '\(type)' is cut short") }
                let large = UInt64(ByteCursor.u32(bytes, offset + 8)) << 32 | UInt64(ByteCursor.u32(bytes, offset + 12))
                guard large <= UInt64(range.upperBound - offset) else { throw MediaFormatsError.malformed("box '\(type)' is larger than the box that holds it") }
                size = Int(large)
                header = 16
            default: size = Int(size32)
            }
            guard size >= header else { throw MediaFormatsError.malformed("box '\(type)' claims \(size) bytes, less than its own header") }
            guard size <= range.upperBound - offset else { throw MediaFormatsError.malformed("box '\(type)' is larger than the box that holds it") }
            boxes.append(Box(type: type, payload: offset + header..<offset + size))
            offset += size
        }
        return boxes
    }

    mutating func movie() throws -> MovieParts {
        var parts = MovieParts()
        for box in try children(of: 0..<bytes.count, depth: 1) {
            switch box.type {
            case FourCC("mvhd"):
                (parts.timescale, parts.movieDuration) = try timedHeader(box, withDuration: true)
            case FourCC("trak"):
                parts.tracks.append(try track(box, depth: 2))
            case FourCC("udta"):
                for child in try children(of: box.payload, depth: 2) {
                    if child.type == FourCC("chpl") { parts.neroChapters = try neroChapters(child) }
                    if child.type == FourCC("meta") { try metadata(child, depth: 3, into: &parts) }
                }
            case FourCC("meta"):
                try metadata(box, depth: 2, into: &parts)
            default: break
            }
        }
        return parts
    }

    /// `mvhd`, `tkhd` and `mdhd` begin alike (ISO/IEC 14496-12 §8.2.2, §8.3.2, §8.4.2): version,
    /// flags, creation and modification times (32 bits, or 64 in version 1), then a 32-bit field
    /// (the timescale; `tkhd`'s track id) and, in `mvhd` and `mdhd`, the duration (32 or 64 bits).
    private func timedHeader(_ box: Box, withDuration: Bool) throws -> (field: UInt32, duration: UInt64) {
        let name = box.type.description
        var cursor = ByteCursor(bytes, from: box.payload.lowerBound, to: box.payload.upperBound)
        let version = try cursor.u8(name)
        try cursor.skip(3 + (version == 1 ? 16 : 8), name)
        let field = try cursor.u32(name)
        guard withDuration else { return (field, 0) }
        return (field, version == 1 ? try cursor.u64(name) : UInt64(try cursor.u32(name)))
    }

    private mutating func track(_ trak: Box, depth: Int) throws -> Track {
        var track = Track()
        for box in try children(of: trak.payload, depth: depth) {
            switch box.type {
            case FourCC("tkhd"):
                track.id = try timedHeader(box, withDuration: false).field
            case FourCC("tref"):
                for reference in try children(of: box.payload, depth: depth + 1) where reference.type == FourCC("chap") {
                    var cursor = ByteCursor(bytes, from: reference.payload.lowerBound, to: reference.payload.upperBound)
                    while cursor.remaining >= 4 { track.chapterTrackIDs.append(try cursor.u32()) }
                }
            case FourCC("mdia"):
                try media(box, depth: depth + 1, into: &track)
            case FourCC("edts"):
                for list in try children(of: box.payload, depth: depth + 1) where list.type == FourCC("elst") {
                    // (Only an M4A joined from another server needs it: a damaged list must not
                    // refuse a file the library reads for its chapters and tags.)
                    track.edit = try? firstEdit(list)
                }
            default: break
            }
        }
        return track
    }

    /// An edit list's first edit that is not empty (ISO/IEC 14496-12 §8.6.6: an empty edit, media
    /// time −1, delays the track; the next one says where its media starts).
    private func firstEdit(_ elst: Box) throws -> (mediaTime: Int64, duration: UInt64)? {
        var cursor = ByteCursor(bytes, from: elst.payload.lowerBound, to: elst.payload.upperBound)
        let version = try cursor.u8("elst")
        try cursor.skip(3, "elst")
        let count = try cursor.u32("elst")
        for _ in 0..<min(count, 1_000) {
            let duration = version == 1 ? try cursor.u64("an edit") : UInt64(try cursor.u32("an edit"))
            let time = version == 1 ? Int64(bitPattern: try cursor.u64("an edit")) : Int64(Int32(bitPattern: try cursor.u32("an edit")))
            try cursor.skip(4, "an edit")
            if time >= 0 { return (time, duration) }
        }
        return nil
    }

    private mutating func media(_ mdia: Box, depth: Int, into track: inout Track) throws {
        for box in try children(of: mdia.payload, depth: depth) {
            switch box.type {
            case FourCC("mdhd"):
                (track.timescale, track.duration) = try timedHeader(box, withDuration: true)
            case FourCC("hdlr"):
                var cursor = ByteCursor(bytes, from: box.payload.lowerBound, to: box.payload.upperBound)
                try cursor.skip(8, "hdlr")
                track.handler = FourCC(Array(try cursor.take(4, "hdlr")), 0)
            case FourCC("minf"):
                for stbl in try children(of: box.payload, depth: depth + 1) where stbl.type == FourCC("stbl") {
                    var table = SampleTable(stts: 0..<0)
                    var sawTimes = false
                    for entry in try children(of: stbl.payload, depth: depth + 2) {
                        switch entry.type {
                        case FourCC("stts"): table.stts = entry.payload; sawTimes = true
                        case FourCC("stsd"): table.stsd = entry.payload
                        case FourCC("stsz"): table.stsz = entry.payload
                        case FourCC("stsc"): table.stsc = entry.payload
                        case FourCC("stco"): table.chunkOffsets = (entry.payload, false)
                        case FourCC("co64"): table.chunkOffsets = (entry.payload, true)
                        default: break
                        }
                    }
                    if sawTimes { track.sampleTable = table }
                }
            default: break
            }
        }
    }

    /// Nero chapters (`udta/chpl`): version, flags, (version 1: 4 reserved bytes,) an 8-bit count,
    /// then each start in 100 ns units and a length-prefixed UTF-8 title.
    private func neroChapters(_ box: Box) throws -> [(title: String, start: Double)] {
        var cursor = ByteCursor(bytes, from: box.payload.lowerBound, to: box.payload.upperBound)
        let version = try cursor.u8("chpl")
        try cursor.skip(3, "chpl")
        if version != 0 { try cursor.skip(4, "chpl") }
        let count = try cursor.u8("chpl")
        var chapters: [(title: String, start: Double)] = []
        for _ in 0..<count {
            let start = try cursor.u64("a chpl entry")
            let length = Int(try cursor.u8("a chpl entry"))
            let title = try cursor.take(length, "a chpl title")
            chapters.append((title: TextDecoding.cleaned(TextDecoding.utf8(title)) ?? "", start: Double(start) / 10_000_000))
        }
        return chapters
    }

    // MARK: Metadata

    /// `meta` is a full box in ISO files (4 bytes of version and flags first) but not in QuickTime
    /// files. Quirk found in the wild: both forms exist in M4B files, so look for where `hdlr` is.
    private mutating func metadata(_ meta: Box, depth: Int, into parts: inout MovieParts) throws {
        var payload = meta.payload
        if payload.count >= 12, FourCC(bytes, payload.lowerBound + 4) != FourCC("hdlr") {
            payload = payload.lowerBound + 4..<payload.upperBound
        }
        for box in try children(of: payload, depth: depth) where box.type == FourCC("ilst") {
            for item in try children(of: box.payload, depth: depth + 1) {
                guard let data = try children(of: item.payload, depth: depth + 2).first(where: { $0.type == FourCC("data") }),
                      data.payload.count >= 8 else { continue }
                let kind = ByteCursor.u32(bytes, data.payload.lowerBound) & 0x00FF_FFFF
                let value = bytes[data.payload.lowerBound + 8..<data.payload.upperBound]
                let text = { kind == 2 ? TextDecoding.cleaned(TextDecoding.utf16(value)) : TextDecoding.cleaned(TextDecoding.utf8(value)) }
                switch item.type {
                case FourCC(copyright: "nam"): parts.tags.title = text()
                case FourCC(copyright: "ART"): parts.tags.artist = text()
                case FourCC(copyright: "alb"): parts.tags.album = text()
                case FourCC("aART"): parts.tags.albumArtist = text()
                case FourCC(copyright: "day"): parts.tags.year = text()
                case FourCC("desc"): parts.tags.description = text()
                case FourCC(copyright: "cmt"): parts.tags.description = parts.tags.description ?? text()
                case FourCC("trkn"): parts.tags.track = Self.position(value)
                case FourCC("disk"): parts.tags.disc = Self.position(value)
                case FourCC("covr") where parts.artwork == nil && !value.isEmpty:
                    parts.artwork = ParsedArtwork(mimeType: Artwork.mimeType(kind: kind, value), data: Data(value))
                default: break
                }
            }
        }
    }

    /// `trkn` and `disk`: two reserved bytes, the number, the total.
    private static func position(_ value: ArraySlice<UInt8>) -> Int? {
        guard value.count >= 4 else { return nil }
        let number = Int(value[value.startIndex + 2]) << 8 | Int(value[value.startIndex + 3])
        return number > 0 ? number : nil
    }
}

enum Artwork {
    /// The MIME type of a picture: from the `covr` data type (13 JPEG, 14 PNG, 27 BMP), else its magic bytes.
    static func mimeType(kind: UInt32 = 0, _ bytes: ArraySlice<UInt8>) -> String {
        switch kind {
        case 13: return "image/jpeg"
        case 14: return "image/png"
        case 27: return "image/bmp"
        default: break
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0x47, 0x49, 0x46]) { return "image/gif" }
        if bytes.starts(with: [0x42, 0x4D]) { return "image/bmp" }
        return "application/octet-stream"
    }
}
