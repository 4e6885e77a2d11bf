import Foundation

/// An MP3 on another server, read from its first bytes and its size alone (a Range request for
/// the head), so it can be joined into a stream without fetching it whole: where its audio
/// starts, how long it lasts, and which byte a second of it is near.
public struct MP3Head: Sendable, Equatable {
    /// The first byte of audio (after the tags and any Xing/Info/VBRI summary frame).
    public var audioStart: Int64
    /// The file's size.
    public var size: Int64
    /// Seconds of audio: the summary's frame count when it gives one that fits the bytes, else the
    /// bytes at the first frame's bitrate (exact for a constant-rate file, as LibriVox's are).
    public var duration: Double
    public var sampleRate: Int
    /// Samples in each frame (1,152 or 576).
    public var samplesPerFrame: Int
    /// The summary gave the length (a variable-rate file's is then right, though its bytes are
    /// not evenly spread over its seconds).
    public var counted: Bool
    /// Every frame holds as many bytes (LAME's "Info" summary, or none): a second's byte is then
    /// known from the rate. A variable-rate file ("Xing", "VBRI") is read from its start.
    public var constantRate: Bool

    /// How many bytes to ask for first: the tags in front of most files (covers are the big ones)
    /// fit, or the audio is found within them.
    public static let headBytes = 256 << 10

    /// Where the ID3v2 tags in front of the file end, as far as `head` (its first bytes) shows:
    /// past the head when a tag is bigger (a large cover), and the audio is then looked for in
    /// bytes read from there.
    public static func tagsEnd(_ head: [UInt8]) throws -> Int64 {
        let source = HeadSource(head: head, base: 0)
        var offset: Int64 = 0
        for _ in 0..<MP3Reader.maxTags {
            guard offset + 10 <= Int64(head.count), let total = try ID3Reader.tagSize(try source.bytes(at: offset, count: 10)) else { break }
            offset += Int64(total)
        }
        return offset
    }

    /// Reads `bytes`, the file's bytes from `at` (its first bytes, or those from `tagsEnd` when
    /// the tags are longer than a head), of `size` in all.
    /// - Throws: `MediaFormatsError.malformed` when no MPEG audio frame starts within them.
    public static func read(_ bytes: [UInt8], at base: Int64 = 0, size: Int64) throws -> MP3Head {
        let source = HeadSource(head: bytes, base: base)
        // ID3v2 tags in front are stepped over (their contents are not needed here).
        let offset = base > 0 ? base : try tagsEnd(bytes)
        guard offset < base + Int64(bytes.count), let first = try MP3Reader.firstFrame(source, from: offset, to: size) else {
            throw MediaFormatsError.malformed("no MPEG audio frame was found in its \(bytes.count) bytes from \(base)")
        }
        let frame = try source.bytes(at: first.offset, count: max(first.header.length, 58))
        let summary = MP3Reader.summary(of: frame, header: first.header)
        let xingAt = 4 + first.header.sideInfoLength
        let variable = summary.present && !(xingAt + 4 <= frame.count && FourCC(frame, xingAt) == FourCC("Info"))
        let audioStart = first.offset + (summary.present ? Int64(first.header.length) : 0)
        let audioBytes = max(0, size - audioStart)
        let perFrame = Double(first.header.samplesPerFrame) / Double(first.header.sampleRate)
        let counted = summary.frames.map { first.header.plausible(frames: Int64($0), inBytes: audioBytes) } ?? false
        let duration = counted ? Double(summary.frames!) * perFrame : Double(audioBytes) * 8 / Double(first.header.bitrate)
        return MP3Head(audioStart: audioStart, size: size, duration: duration, sampleRate: first.header.sampleRate,
                       samplesPerFrame: first.header.samplesPerFrame, counted: counted, constantRate: !variable)
    }

    /// Average bytes of audio per second.
    public var bytesPerSecond: Double { duration > 0 ? Double(size - audioStart) / duration : 0 }

    /// Where to start reading for second `seconds`: a byte before it, and the second the first
    /// frame after that byte starts at. A decoder fed from there finds that frame and plays on;
    /// `seconds - at` is what it drops first. In a constant-rate file the byte is half a frame
    /// before the frame's start (frames differ by a byte of padding, so the rate places a frame's
    /// start within a byte); a variable-rate file's bytes are not spread evenly over its seconds,
    /// so it is read from its start.
    public func byte(before seconds: Double) -> (offset: Int64, at: Double) {
        guard seconds > 0, bytesPerSecond > 0, constantRate else { return (audioStart, 0) }
        let frame = Double(samplesPerFrame) / Double(sampleRate)
        let frames = (min(seconds, duration) / frame).rounded(.down)
        guard frames >= 1 else { return (audioStart, 0) }
        let offset = audioStart + Int64(((frames - 0.5) * frame * bytesPerSecond).rounded(.down))
        return (min(offset, max(audioStart, size - 1)), frames * frame)
    }

    /// The head as a byte source: reads within it answer, reads past it find nothing (which the
    /// frame search takes as the end of what it can see).
    struct HeadSource: ByteSource {
        let head: [UInt8]
        /// Where the head is in the file.
        let base: Int64
        var size: Int64 { base + Int64(head.count) }

        func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
            let at = offset - base
            guard at >= 0, count > 0, at < Int64(head.count) else { return [] }
            return Array(head[Int(at)..<min(head.count, Int(at) + count)])
        }
    }
}
