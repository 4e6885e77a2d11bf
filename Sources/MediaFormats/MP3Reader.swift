import Foundation

/// Reads MP3 files (MPEG-1, -2 and -2.5 audio, layers I–III): ID3v2 tags in front, ID3v1 at the
/// end, and the duration from the Xing/Info or VBRI header of the first frame, or by counting
/// every frame when there is neither.
enum MP3Reader {
    /// How far past the tags we look for the first frame (some files carry junk or padding there).
    static let maxLeadingJunk = 64 << 10
    static let maxTags = 8
    private static let blockSize = 1 << 20

    static func sniff(_ head: [UInt8]) -> Bool {
        if head.count >= 3, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 { return true }
        return head.count >= 4 && FrameHeader(head, 0) != nil
    }

    static func parse(_ source: ByteSource) throws -> ParsedMedia {
        let layout = try layout(source)
        let perFrame = Double(layout.header.samplesPerFrame) / Double(layout.header.sampleRate)
        let audioStart = layout.firstFrame + (layout.startsWithSummary ? Int64(layout.header.length) : 0)
        let audioBytes = max(0, layout.audioEnd - audioStart)
        let duration: Double
        if let frames = layout.summaryFrames {
            // A summary is believed only when its frame count fits the bytes there are: a header
            // that claims 2³² frames in 48 KB is a lie, and the size and the bitrate say the truth.
            duration = layout.header.plausible(frames: Int64(frames), inBytes: audioBytes)
                ? Double(frames) * perFrame
                : Double(audioBytes) * 8 / Double(layout.header.bitrate)
        } else {
            duration = try countedDuration(source, from: audioStart, to: layout.audioEnd)
        }
        let chapters = chapterList(layout.contents, duration: duration)
        return ParsedMedia(format: .mp3, duration: duration, tags: layout.contents.tags, artwork: layout.contents.artwork, chapters: chapters)
    }

    /// Where the parts of an MP3 file lie.
    struct Layout {
        var contents: ID3Contents
        /// The first frame (which may be a Xing/Info/VBRI summary that holds no audio).
        var firstFrame: Int64
        var header: FrameHeader
        /// Where the audio ends (before an ID3v1 tag).
        var audioEnd: Int64
        /// The first frame is a summary frame: the audio starts with the next one.
        var startsWithSummary: Bool
        /// The number of audio frames the summary gives, if it gives one.
        var summaryFrames: UInt32?
    }

    static func layout(_ source: ByteSource) throws -> Layout {
        var offset: Int64 = 0
        var contents = ID3Contents()
        var sawTag = false
        // ID3v2 tags in front; writers sometimes leave more than one.
        for _ in 0..<maxTags {
            let head = try source.bytes(at: offset, count: 10)
            guard let total = try ID3Reader.tagSize(head) else { break }
            guard total <= ID3Reader.maxTagBytes else { throw MediaFormatsError.tooLarge("an ID3 tag of \(total) bytes (at most \(ID3Reader.maxTagBytes))") }
            let bytes = try source.bytes(at: offset, count: total)
            guard bytes.count == total else { throw MediaFormatsError.malformed("the ID3 tag runs past the end of the file") }
            let tag = try ID3Reader.parse(bytes)
            if !sawTag { contents = tag } else { contents.tags = contents.tags.filled(from: tag.tags) }
            sawTag = true
            offset += Int64(total)
        }
        var audioEnd = source.size
        if source.size >= 128, let old = ID3Reader.version1(try source.bytes(at: source.size - 128, count: 128)) {
            contents.tags = contents.tags.filled(from: old)
            audioEnd -= 128
        }
        guard let first = try firstFrame(source, from: offset, to: audioEnd) else {
            throw MediaFormatsError.malformed("no MPEG audio frame was found")
        }
        let head = try source.bytes(at: first.offset, count: max(first.header.length, 58))
        let summary = summary(of: head, header: first.header)
        return Layout(contents: contents, firstFrame: first.offset, header: first.header, audioEnd: audioEnd,
                      startsWithSummary: summary.present, summaryFrames: summary.frames)
    }

    /// `CHAP` frames in the top-level `CTOC`'s order when there is one, else by start time; a
    /// chapter keeps its own end time when it has one.
    private static func chapterList(_ contents: ID3Contents, duration: Double) -> [ParsedChapter] {
        var chapters = contents.chapters
        if let order = contents.tableOfContents {
            let listed = order.compactMap { id in chapters.first { $0.id == id } }
            if listed.count == chapters.count { chapters = listed }
        }
        let ranges = ChapterRanges.closed(chapters.map { (title: $0.title, start: Double($0.start) / 1000) }, duration: duration)
        let ends = Dictionary(chapters.map { (Double($0.start) / 1000, $0.end) }, uniquingKeysWith: { first, _ in first })
        return ranges.map { chapter in
            guard let end = ends[chapter.start], end != UInt32.max, Double(end) / 1000 > chapter.start else { return chapter }
            return ParsedChapter(title: chapter.title, start: chapter.start, end: Double(end) / 1000)
        }
    }

    // MARK: - Frames

    /// The first frame header at or after `from` that is followed by another frame (or the end),
    /// so a stray 0xFF in junk is not taken for one.
    static func firstFrame(_ source: ByteSource, from: Int64, to: Int64) throws -> (offset: Int64, header: FrameHeader)? {
        let window = try source.bytes(at: from, count: Int(min(Int64(maxLeadingJunk + 8192), max(0, to - from))))
        var index = 0
        while index + 4 <= window.count {
            if let header = FrameHeader(window, index) {
                let next = index + header.length
                if Int64(next) + from >= to { return (from + Int64(index), header) }
                if next + 4 <= window.count {
                    if FrameHeader(window, next) != nil { return (from + Int64(index), header) }
                } else {
                    let following = try source.bytes(at: from + Int64(next), count: 4)
                    if following.count == 4, FrameHeader(following, 0) != nil { return (from + Int64(index), header) }
                }
            }
            if index >= maxLeadingJunk { break }
            index += 1
        }
        return nil
    }

    /// A summary in the first frame: a Xing or Info header (LAME and most encoders) at the end of
    /// the side information, or a VBRI header (Fraunhofer) 32 bytes after the frame header. Its
    /// frame count (when it gives one) excludes the summary frame, which holds no audio.
    static func summary(of frame: [UInt8], header: FrameHeader) -> (present: Bool, frames: UInt32?) {
        let xingAt = 4 + header.sideInfoLength
        if xingAt + 8 <= frame.count, [FourCC("Xing"), FourCC("Info")].contains(FourCC(frame, xingAt)) {
            let flags = ByteCursor.u32(frame, xingAt + 4)
            let frames = flags & 1 != 0 && xingAt + 12 <= frame.count ? ByteCursor.u32(frame, xingAt + 8) : 0
            return (true, frames > 0 ? frames : nil)
        }
        if 36 + 4 <= frame.count, FourCC(frame, 36) == FourCC("VBRI") {
            let frames = 36 + 18 <= frame.count ? ByteCursor.u32(frame, 36 + 14) : 0
            return (true, frames > 0 ? frames : nil)
        }
        return (false, nil)
    }

    /// Walks every frame to the end of the audio, a block at a time, resynchronising past damage.
    private static func countedDuration(_ source: ByteSource, from start: Int64, to end: Int64) throws -> Double {
        var seconds = 0.0
        var position = start
        var block: [UInt8] = []
        var blockStart: Int64 = 0
        func byte4(at offset: Int64) throws -> (bytes: [UInt8], index: Int)? {
            if offset < blockStart || offset + 4 > blockStart + Int64(block.count) {
                block = try source.bytes(at: offset, count: Int(min(Int64(blockSize), end - offset)))
                blockStart = offset
            }
            let index = Int(offset - blockStart)
            return index + 4 <= block.count ? (block, index) : nil
        }
        while position + 4 <= end {
            guard let (bytes, index) = try byte4(at: position) else { break }
            if let header = FrameHeader(bytes, index) {
                seconds += Double(header.samplesPerFrame) / Double(header.sampleRate)
                position += Int64(header.length)
            } else {
                position += 1  // damage: look for the next frame
            }
        }
        return seconds
    }
}

/// One MPEG audio frame header (ISO/IEC 11172-3 and 13818-3): four bytes that give the frame's
/// length in bytes and how many samples it holds.
struct FrameHeader: Equatable {
    let sampleRate: Int
    let samplesPerFrame: Int
    let length: Int
    /// Bits per second.
    let bitrate: Int
    /// Bytes of a frame of this version, layer and sample rate at the lowest and the highest bitrate.
    let shortest: Int
    let longest: Int
    /// Bytes of side information after the header (layer III), where a Xing header begins.
    let sideInfoLength: Int

    private static let bitrates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],  // MPEG-1 layer I
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],  // MPEG-1 layer II
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],  // MPEG-1 layer III
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],  // MPEG-2/2.5 layer I
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],  // MPEG-2/2.5 layers II, III
    ]

    /// Reads the header at `bytes[at..<at+4]`; nil when those bytes are not a valid header
    /// (reserved values and the "free" bitrate are refused).
    init?(_ bytes: [UInt8], _ at: Int) {
        guard at >= 0, at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = Int(bytes[at + 1] >> 3 & 3)  // 0: 2.5, 2: 2, 3: 1
        let layerBits = Int(bytes[at + 1] >> 1 & 3)  // 1: III, 2: II, 3: I
        let bitrateIndex = Int(bytes[at + 2] >> 4)
        let rateIndex = Int(bytes[at + 2] >> 2 & 3)
        guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let padding = Int(bytes[at + 2] >> 1 & 1)
        let mono = bytes[at + 3] >> 6 == 3
        let mpeg1 = versionBits == 3
        let layer = 4 - layerBits
        let table = mpeg1 ? layer - 1 : (layer == 1 ? 3 : 4)
        bitrate = Self.bitrates[table][bitrateIndex] * 1000
        let rates = [44_100, 48_000, 32_000]
        let sampleRate = rates[rateIndex] / (mpeg1 ? 1 : versionBits == 2 ? 2 : 4)
        self.sampleRate = sampleRate
        let frameLength: (Int, Int) -> Int
        switch layer {
        case 1:
            samplesPerFrame = 384
            frameLength = { bitrate, padding in (12 * bitrate / sampleRate + padding) * 4 }
        case 2:
            samplesPerFrame = 1152
            frameLength = { bitrate, padding in 144 * bitrate / sampleRate + padding }
        default:
            samplesPerFrame = mpeg1 ? 1152 : 576
            frameLength = { bitrate, padding in (mpeg1 ? 144 : 72) * bitrate / sampleRate + padding }
        }
        length = frameLength(bitrate, padding)
        shortest = frameLength(Self.bitrates[table][1] * 1000, 0)
        longest = frameLength(Self.bitrates[table][14] * 1000, 1)
        sideInfoLength = mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        guard length >= 4 else { return nil }
    }

    /// Whether `frames` frames of this kind can fill `bytes` bytes of audio: their average length
    /// within half the shortest frame and twice the longest (room for a tag or padding at the end).
    func plausible(frames: Int64, inBytes bytes: Int64) -> Bool {
        guard frames > 0, bytes > 0 else { return false }
        let average = Double(bytes) / Double(frames)
        return average >= Double(shortest) / 2 && average <= Double(longest) * 2
    }
}
