import Foundation

/// An M4A on another server, read from its `moov` box alone, so that it can be joined into a
/// stream without fetching it whole (issue 46), as `MP3Head` reads an MP3 from its first bytes:
/// how long its sound lasts, which of its AAC frames a second is in and at which byte that frame
/// starts, and its frames turned into ADTS (`ADTSFramer`), which a decoder reads from a pipe
/// starting anywhere (an MP4 read from a pipe must begin at its start, and its `moov` may be at
/// its end).
///
/// Nothing in the box is trusted: every count is capped by the bytes that hold it, and every frame
/// must lie inside the file.
public struct MP4Audio: Sendable, Equatable {
    /// The file's size.
    public let size: Int64
    /// The sound track's ticks per second.
    public let timescale: Int
    /// Ticks of the encoder's priming at the start, not heard (the edit list's media time).
    public let priming: Int64
    /// Seconds of sound, priming left out.
    public let duration: Double
    /// The ADTS header's fields every frame shares.
    public let adts: ADTSHeader
    /// The frames' times: runs of `count` frames of `delta` ticks each.
    let times: [Run]
    /// Each frame's size in bytes (each at most `ADTSHeader.maxFrameBytes`).
    let sizes: [UInt16]
    /// Where each chunk of frames starts, and its first frame.
    let chunks: [Chunk]

    struct Run: Sendable, Equatable {
        var count: Int
        var delta: Int64
    }

    struct Chunk: Sendable, Equatable {
        var offset: Int64
        var firstFrame: Int
    }

    /// Frames in the track.
    public var frameCount: Int { sizes.count }

    /// About how many bytes of memory the tables take (for a cache to bound what it keeps).
    public var tableBytes: Int { sizes.count * 2 + chunks.count * MemoryLayout<Chunk>.stride + times.count * MemoryLayout<Run>.stride }

    /// The most frames read (48 hours of 48 kHz AAC): a fixed-size table names any count in a few
    /// bytes, and each frame costs memory.
    public static let maxFrames = 48 * 3600 * 48_000 / 1_024

    /// The most `moov` bytes read of a file on another server (an hour of AAC at 44.1 kHz has
    /// about 155,000 frames, whose tables take about 1 MB; a 40-hour book, 25 MB).
    public static let maxMovieBytes = 32 << 20

    /// Whether `head` (a file's first bytes) begins as an MP4 does.
    public static func sniff(_ head: [UInt8]) -> Bool { MP4Reader.sniff(head) }

    // MARK: - Finding the movie

    /// Where a file's `moov` box is, as far as some of its bytes show.
    public enum Finding: Sendable, Equatable {
        /// The box's payload: these bytes of the file.
        case movie(Range<Int64>)
        /// The boxes before it end past the bytes given: read on from this byte.
        case readFrom(Int64)
    }

    /// Walks the top-level boxes whose headers lie in `bytes` (the file's bytes from `base`, of
    /// `size` in all) to the `moov` box.
    /// - Throws: `MediaFormatsError.malformed` when a box's size cannot be, or the file ends with
    ///   no `moov`; `.tooLarge` when the `moov` is larger than `maxMovieBytes`.
    public static func findMovie(in bytes: [UInt8], at base: Int64, size: Int64) throws -> Finding {
        var offset = base
        for _ in 0..<MP4Reader.maxTopLevelBoxes {
            guard offset >= 0, size - offset >= 8 else { break }
            // The box's header must be in the bytes given (16 of them for a 64-bit size).
            guard offset >= base, offset - base <= Int64(bytes.count) - 8 else { return .readFrom(offset) }
            let at = Int(offset - base)
            if ByteCursor.u32(bytes, at) == 1, at + 16 > bytes.count { return .readFrom(offset) }
            let size32 = ByteCursor.u32(bytes, at)
            let type = FourCC(bytes, at + 4)
            var header: Int64 = 8
            var boxSize: Int64
            switch size32 {
            case 0: boxSize = size - offset
            case 1:
                let large = UInt64(ByteCursor.u32(bytes, at + 8)) << 32 | UInt64(ByteCursor.u32(bytes, at + 12))
                guard large <= UInt64(size) else { throw MediaFormatsError.malformed("box '\(type)' claims more bytes than the file has") }
                boxSize = Int64(large)
                header = 16
            default: boxSize = Int64(size32)
            }
            guard boxSize >= header, boxSize <= size - offset else {
                throw MediaFormatsError.malformed("box '\(type)' at byte \(offset) claims \(boxSize) bytes, which the file cannot hold")
            }
            if type == FourCC("moov") {
                guard boxSize - header <= Int64(maxMovieBytes) else {
                    throw MediaFormatsError.tooLarge("the 'moov' box holds \(boxSize - header) bytes (at most \(maxMovieBytes))")
                }
                return .movie(offset + header..<offset + boxSize)
            }
            offset += boxSize
        }
        throw MediaFormatsError.malformed("there is no 'moov' box (the file was not finished being written)")
    }

    // MARK: - Reading the movie

    /// The sound track of a `moov` box's payload, in a file of `size` bytes.
    /// - Throws: `MediaFormatsError.noAudio` with no sound track; `.malformed` when its tables do
    ///   not agree or its frames lie past the file's end, or its sound is not AAC.
    public static func read(movie: [UInt8], size: Int64) throws -> MP4Audio {
        var walker = BoxWalker(bytes: movie)
        let parts = try walker.movie()
        guard let track = parts.tracks.first(where: { $0.handler == FourCC("soun") }) else { throw MediaFormatsError.noAudio }
        guard track.timescale > 0, let table = track.sampleTable, let stsd = table.stsd, let stsz = table.stsz, let stsc = table.stsc,
              let chunkTable = table.chunkOffsets else {
            throw MediaFormatsError.malformed("the sound track does not say where its frames are")
        }
        let adts = try ADTSHeader.read(stsd, in: movie, walker: &walker)
        let sizes = try frameSizes(stsz, movie)
        let times = try frameTimes(table.stts, movie, count: sizes.count)
        let chunks = try frameChunks(stsc, chunkTable, movie, count: sizes.count)
        // Every frame inside the file, in the file's order: a table that says otherwise describes
        // another file (or one a stream read forward cannot follow).
        var previousEnd: Int64 = 0
        for (index, chunk) in chunks.enumerated() {
            let end = index + 1 < chunks.count ? chunks[index + 1].firstFrame : sizes.count
            let bytes = sizes[chunk.firstFrame..<end].reduce(Int64(0)) { $0 + Int64($1) }
            guard chunk.offset >= 0, chunk.offset <= size - bytes else {
                throw MediaFormatsError.malformed("its frames at byte \(chunk.offset) lie past the file's end (\(size) bytes)")
            }
            guard chunk.offset >= previousEnd else {
                throw MediaFormatsError.malformed("its frames at byte \(chunk.offset) come before those already read")
            }
            previousEnd = chunk.offset + bytes
        }
        let ticks = times.reduce(Int64(0)) { $0 + Int64($1.count) * $1.delta }
        let (priming, heard) = track.heard(ticks, movieTimescale: parts.timescale)
        guard heard > 0 else { throw MediaFormatsError.malformed("its sound track lasts no time") }
        return MP4Audio(size: size, timescale: Int(track.timescale), priming: priming, duration: Double(heard) / Double(track.timescale),
                        adts: adts, times: times, sizes: sizes, chunks: chunks)
    }

    /// Each frame's size: none empty, none larger than an ADTS frame holds.
    private static func frameSizes(_ stsz: Range<Int>, _ movie: [UInt8]) throws -> [UInt16] {
        var cursor = ByteCursor(movie, from: stsz.lowerBound, to: stsz.upperBound)
        try cursor.skip(4, "the sample sizes")
        let fixed = try cursor.u32("the sample sizes"), count = Int(try cursor.u32("the sample sizes"))
        guard count > 0 else { throw MediaFormatsError.malformed("the sound track has no frames") }
        guard count <= maxFrames else { throw MediaFormatsError.tooLarge("\(count) frames (at most \(maxFrames))") }
        func checked(_ size: UInt32) throws -> UInt16 {
            guard size > 0, size <= UInt32(ADTSHeader.maxFrameBytes) else {
                throw MediaFormatsError.malformed("an AAC frame of \(size) bytes (1 to \(ADTSHeader.maxFrameBytes))")
            }
            return UInt16(size)
        }
        if fixed != 0 { return Array(repeating: try checked(fixed), count: count) }
        try cursor.require(count * 4, "the sample sizes")
        return try (0..<count).map { _ in try checked(try cursor.u32()) }
    }

    /// The time-to-sample runs, as many frames as there are sizes (a table that lists fewer times
    /// than frames is cut short).
    private static func frameTimes(_ stts: Range<Int>, _ movie: [UInt8], count: Int) throws -> [Run] {
        var cursor = ByteCursor(movie, from: stts.lowerBound, to: stts.upperBound)
        try cursor.skip(4, "the frame times")
        let entries = Int(try cursor.u32("the frame times"))
        try cursor.require(entries * 8, "the frame times")
        var runs: [Run] = []
        var covered = 0
        for _ in 0..<entries where covered < count {
            let frames = min(Int(try cursor.u32()), count - covered), delta = Int64(try cursor.u32())
            guard frames > 0 else { continue }
            runs.append(Run(count: frames, delta: delta))
            covered += frames
        }
        guard covered == count else { throw MediaFormatsError.malformed("the frame times list \(covered) of \(count) frames") }
        return runs
    }

    /// Each chunk's offset and first frame, from the sample-to-chunk runs and the chunk offsets.
    private static func frameChunks(_ stsc: Range<Int>, _ offsets: (range: Range<Int>, is64: Bool), _ movie: [UInt8], count: Int) throws -> [Chunk] {
        var cursor = ByteCursor(movie, from: offsets.range.lowerBound, to: offsets.range.upperBound)
        try cursor.skip(4, "the chunk offsets")
        let chunkCount = Int(try cursor.u32("the chunk offsets"))
        try cursor.require(chunkCount * (offsets.is64 ? 8 : 4), "the chunk offsets")
        var runCursor = ByteCursor(movie, from: stsc.lowerBound, to: stsc.upperBound)
        try runCursor.skip(4, "the sample-to-chunk table")
        let runCount = Int(try runCursor.u32("the sample-to-chunk table"))
        try runCursor.require(runCount * 12, "the sample-to-chunk table")
        var runs: [(firstChunk: Int, frames: Int)] = []
        for _ in 0..<runCount {
            let first = Int(try runCursor.u32()), frames = Int(try runCursor.u32())
            try runCursor.skip(4)
            guard first >= 1, first > (runs.last?.firstChunk ?? 0) else { throw MediaFormatsError.malformed("the sample-to-chunk table is out of order") }
            runs.append((first, frames))
        }
        var chunks: [Chunk] = []
        chunks.reserveCapacity(min(chunkCount, count))
        var run = 0, frame = 0
        for number in 1...max(1, chunkCount) where chunkCount > 0 && frame < count {
            let offset = offsets.is64 ? try cursor.u64() : UInt64(try cursor.u32())
            while run + 1 < runs.count, runs[run + 1].firstChunk <= number { run += 1 }
            guard run < runs.count, runs[run].firstChunk <= number, runs[run].frames > 0 else { continue }
            guard offset <= UInt64(Int64.max) else { throw MediaFormatsError.malformed("a chunk lies past any possible file end") }
            chunks.append(Chunk(offset: Int64(offset), firstFrame: frame))
            frame += runs[run].frames
        }
        guard frame >= count else { throw MediaFormatsError.malformed("its chunks hold \(frame) of its \(count) frames") }
        return chunks
    }

    // MARK: - Seconds and bytes

    /// The frame to start decoding from for second `seconds` (of the sound as heard): the one
    /// before the frame that holds it (a frame's sound overlaps the one before's, which the decoder
    /// needs first), and the second it starts at (negative for the first, whose priming is not
    /// heard). A decoder fed from it drops `seconds - at` first.
    public func frame(before seconds: Double) -> (index: Int, at: Double) {
        let target = Int64((max(0, min(seconds, duration)) * Double(timescale)).rounded(.down)) + priming
        var index = 0, time: Int64 = 0
        var holding = max(0, sizes.count - 1)
        for run in times {
            let span = Int64(run.count) * run.delta
            if time + span > target, run.delta > 0 {
                holding = index + Int((target - time) / run.delta)
                break
            }
            index += run.count
            time += span
        }
        let chosen = max(0, holding - 1)
        return (chosen, Double(ticks(before: chosen) - priming) / Double(timescale))
    }

    /// The ticks before frame `index` starts.
    func ticks(before index: Int) -> Int64 {
        var frames = 0, time: Int64 = 0
        for run in times {
            if frames + run.count > index { return time + Int64(index - frames) * run.delta }
            frames += run.count
            time += Int64(run.count) * run.delta
        }
        return time
    }

    /// The chunk that holds frame `index`.
    func chunk(holding index: Int) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].firstFrame <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The byte frame `index` starts at.
    public func offset(of index: Int) -> Int64 {
        let chunk = chunks[chunk(holding: index)]
        return sizes[chunk.firstFrame..<index].reduce(chunk.offset) { $0 + Int64($1) }
    }
}

/// The fields of an ADTS header (ISO/IEC 13818-7 §6.2, ISO/IEC 14496-3 §1.A.2) that all of a
/// track's frames share, from its AudioSpecificConfig: the profile, the sample rate's index and the
/// channels.
public struct ADTSHeader: Sendable, Equatable {
    /// The object type less one (0 Main, 1 LC, 2 SSR, 3 LTP).
    public let profile: UInt8
    public let frequencyIndex: UInt8
    public let channels: UInt8

    static let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    /// The sample rate (of the AAC core: HE-AAC's SBR doubles it, which the decoder finds itself).
    public var sampleRate: Int { Self.rates[Int(frequencyIndex)] }

    /// The header for a frame of `count` bytes: seven bytes, no CRC.
    public func bytes(forFrameOf count: Int) -> [UInt8] {
        let length = count + 7
        return [0xFF, 0xF1,
                profile << 6 | frequencyIndex << 2 | channels >> 2,
                (channels & 3) << 6 | UInt8(length >> 11),
                UInt8(length >> 3 & 0xFF),
                UInt8(length & 7) << 5 | 0x1F,
                0xFC]
    }

    /// The most bytes a frame can hold in ADTS (its length field has 13 bits).
    public static let maxFrameBytes = (1 << 13) - 1 - 7

    /// From the first sample description of `stsd` (an `mp4a` entry, its `esds` directly inside or
    /// in QuickTime's `wave`).
    static func read(_ stsd: Range<Int>, in movie: [UInt8], walker: inout BoxWalker) throws -> ADTSHeader {
        guard stsd.count >= 8 else { throw MediaFormatsError.malformed("the sample description is cut short") }
        guard let entry = try walker.children(of: stsd.lowerBound + 8..<stsd.upperBound, depth: 7).first else {
            throw MediaFormatsError.malformed("the sound track has no sample description")
        }
        guard entry.type == FourCC("mp4a") else { throw MediaFormatsError.malformed("its sound is '\(entry.type)', not AAC") }
        // SampleEntry (8 bytes), then AudioSampleEntry's 20. In a QuickTime description (an `stsd`
        // of version 0) the entry's version 1 adds 16 bytes and version 2 adds 36; ISO's
        // AudioSampleEntryV1 (only in an `stsd` of version 1) adds none.
        guard entry.payload.count >= 28 else { throw MediaFormatsError.malformed("the AAC description is cut short") }
        let quickTime = movie[stsd.lowerBound] == 0
        let version = Int(movie[entry.payload.lowerBound + 8]) << 8 | Int(movie[entry.payload.lowerBound + 9])
        let fields = 28 + (quickTime ? (version == 1 ? 16 : version == 2 ? 36 : 0) : 0)
        guard entry.payload.count >= fields else { throw MediaFormatsError.malformed("the AAC description is cut short") }
        var inside = try walker.children(of: entry.payload.lowerBound + fields..<entry.payload.upperBound, depth: 8)
        if let wave = inside.first(where: { $0.type == FourCC("wave") }) {
            inside += try walker.children(of: wave.payload, depth: 9)
        }
        guard let esds = inside.first(where: { $0.type == FourCC("esds") }) else {
            throw MediaFormatsError.malformed("the AAC description has no decoder configuration")
        }
        return try fromDescriptors(esds.payload, in: movie)
    }

    /// `esds`: version and flags, then the ES descriptor (tag 3), its decoder configuration (tag 4)
    /// and in that the decoder's own (tag 5): the AudioSpecificConfig.
    static func fromDescriptors(_ range: Range<Int>, in movie: [UInt8]) throws -> ADTSHeader {
        var cursor = ByteCursor(movie, from: range.lowerBound, to: range.upperBound)
        try cursor.skip(4, "esds")
        func descriptor(_ tag: UInt8) throws -> Int {
            guard try cursor.u8("a descriptor") == tag else { throw MediaFormatsError.malformed("the decoder configuration lacks descriptor \(tag)") }
            var length = 0
            for _ in 0..<4 {
                let byte = try cursor.u8("a descriptor's length")
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            try cursor.require(length, "descriptor \(tag)")
            return length
        }
        _ = try descriptor(3)
        try cursor.skip(2, "the ES descriptor")
        let flags = try cursor.u8("the ES descriptor")
        if flags & 0x80 != 0 { try cursor.skip(2, "the ES descriptor") }
        if flags & 0x40 != 0 { try cursor.skip(Int(try cursor.u8("the ES descriptor's URL")), "the ES descriptor's URL") }
        if flags & 0x20 != 0 { try cursor.skip(2, "the ES descriptor") }
        _ = try descriptor(4)
        let objectType = try cursor.u8("the decoder configuration")
        // 0x40: MPEG-4 audio; 0x66–0x68: MPEG-2 AAC's profiles.
        guard objectType == 0x40 || (0x66...0x68).contains(objectType) else {
            throw MediaFormatsError.malformed("its sound is not AAC (object type \(objectType))")
        }
        try cursor.skip(12, "the decoder configuration")
        let length = try descriptor(5)
        return try fromConfig(Array(try cursor.take(length, "the AudioSpecificConfig")))
    }

    /// An AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1): the object type, the rate's index, the
    /// channels; HE-AAC's (5 and 29) name their AAC core after the extension's rate.
    static func fromConfig(_ config: [UInt8]) throws -> ADTSHeader {
        var bits = BitReader(config)
        func objectType() throws -> Int {
            let type = try bits.read(5)
            return type == 31 ? 32 + (try bits.read(6)) : type
        }
        func rateIndex() throws -> Int {
            let index = try bits.read(4)
            guard index < rates.count else { throw MediaFormatsError.malformed("its AAC sample rate is not one ADTS can name") }
            return index
        }
        var type = try objectType()
        let frequency = try rateIndex()  // the core's rate
        let channels = try bits.read(4)
        if type == 5 || type == 29 {
            _ = try rateIndex()  // the rate SBR makes, which the decoder finds in the frames
            type = try objectType()
        }
        guard (1...4).contains(type) else { throw MediaFormatsError.malformed("its AAC object type \(type) has no ADTS form") }
        guard (1...7).contains(channels) else { throw MediaFormatsError.malformed("its AAC channel layout (\(channels)) has no ADTS form") }
        return ADTSHeader(profile: UInt8(type - 1), frequencyIndex: UInt8(frequency), channels: UInt8(channels))
    }
}

/// Reads bits from the most significant first.
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func read(_ count: Int) throws -> Int {
        var value = 0
        for _ in 0..<count {
            guard position / 8 < bytes.count else { throw MediaFormatsError.malformed("the AudioSpecificConfig is cut short") }
            value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
            position += 1
        }
        return value
    }
}

/// Turns an M4A's bytes, as they come from the byte its frame `from` starts at, into ADTS frames
/// (each frame with its header), stepping over whatever lies between its chunks. It finishes at
/// the track's last frame (`MP4Audio.read` refuses a file whose frames go back on themselves,
/// which a stream read forward could not follow).
public struct ADTSFramer: Sendable {
    public let audio: MP4Audio
    /// The next frame to write.
    public private(set) var frame: Int
    /// Where that frame starts, and the byte the next one given is.
    private var frameStart: Int64
    private var position: Int64
    private var chunk: Int
    private var pending: [UInt8] = []
    public private(set) var finished = false

    public init(_ audio: MP4Audio, from frame: Int) {
        self.audio = audio
        self.frame = min(max(0, frame), audio.frameCount)
        chunk = audio.chunk(holding: self.frame)
        frameStart = self.frame < audio.frameCount ? audio.offset(of: self.frame) : audio.size
        position = frameStart
        finished = self.frame >= audio.frameCount
    }

    /// The byte to read from.
    public var startOffset: Int64 { frameStart }

    /// The ADTS frames the bytes `bytes` (the file's next bytes) complete.
    public mutating func take<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var written: [UInt8] = []
        var index = bytes.startIndex
        while index != bytes.endIndex, !finished {
            let left = bytes.distance(from: index, to: bytes.endIndex)
            if position < frameStart {
                let gap = Int(min(Int64(left), frameStart - position))
                index = bytes.index(index, offsetBy: gap)
                position += Int64(gap)
                continue
            }
            let size = Int(audio.sizes[frame])
            let count = min(size - pending.count, left)
            let end = bytes.index(index, offsetBy: count)
            pending.append(contentsOf: bytes[index..<end])
            index = end
            position += Int64(count)
            guard pending.count == size else { continue }
            written += audio.adts.bytes(forFrameOf: size)
            written += pending
            pending.removeAll(keepingCapacity: true)
            advance(past: size)
        }
        return written
    }

    private mutating func advance(past size: Int) {
        frame += 1
        guard frame < audio.frameCount else {
            finished = true
            return
        }
        if chunk + 1 < audio.chunks.count, audio.chunks[chunk + 1].firstFrame == frame {
            chunk += 1
            frameStart = audio.chunks[chunk].offset
        } else {
            frameStart += Int64(size)
        }
        if frameStart < position { finished = true }
    }
}
