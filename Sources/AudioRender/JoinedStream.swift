import Foundation

/// Several files heard one after another as one MP3 whose every byte is known before it is made:
/// Up Next, a book after a book, the next song, joined by the server so a phone's player never
/// reaches an end while something is queued (a locked phone runs no script to start the next
/// file).
///
/// The MP3 is MPEG-1 Layer III at 48 kHz and 128 kb/s, constant: every frame is 1,152 samples
/// (24 ms) in exactly 384 bytes (144 × 128,000 / 48,000, so no frame is ever padded), and no
/// frame borrows bytes from the one before (LAME's bit reservoir is off). So the stream's length
/// is known from its parts' lengths alone, byte `n` is in frame `n / 384`, and any range of it can
/// be made on its own, from the frame that holds its first byte, by one ffmpeg per part it
/// crosses: the player reads it as a file with a length and seeks it with Range, and a part
/// begins on a frame, at a second the time map says.
///
/// Each part takes the whole frames that hold its length (the last one finishes in silence).
/// LAME's priming puts every part's sound 23 ms after its frame, wherever encoding starts, so a
/// range made from its middle lines up with one made from its start.
public struct JoinedStream: Sendable, Equatable {
    public static let sampleRate = 48_000
    public static let samplesPerFrame = 1_152
    public static let frameBytes = 384
    /// A frame's length in seconds: 0.024.
    public static let frameSeconds = Double(samplesPerFrame) / Double(sampleRate)

    /// A file from a moment in it, for a length.
    public struct Part: Sendable, Equatable {
        /// What the part is, for the caller (an item's key).
        public var name: String
        /// Seconds into the file where the part starts.
        public var from: Double
        /// Seconds of the file the part holds from `from`.
        public var length: Double

        public init(name: String, from: Double, length: Double) {
            self.name = name
            self.from = from
            self.length = length
        }
    }

    /// A part where it lies in the stream.
    public struct Placed: Sendable, Equatable {
        public var part: Part
        /// Its first frame in the stream.
        public var firstFrame: Int
        /// How many frames it takes.
        public var frames: Int
        /// The second of the stream it starts at.
        public var start: Double { Double(firstFrame) * JoinedStream.frameSeconds }
    }

    /// How the whole is shaped, as a rendition of a file is: its level (whole dB; −60 is silence),
    /// Boost's lift into a limiter, and an end (`until`, seconds of the stream) whose last
    /// `fade` seconds fall to silence in a straight line.
    public struct Shape: Sendable, Equatable {
        public var gain: Double
        public var boost: Bool
        public var until: Double?
        public var fade: Double

        public init(gain: Double = 0, boost: Bool = false, until: Double? = nil, fade: Double = 30) {
            self.gain = gain
            self.boost = boost
            self.until = until
            self.fade = fade
        }
    }

    public let parts: [Placed]
    /// Frames in the stream (an `until` cuts it short).
    public let frames: Int
    public let shape: Shape

    public init(_ parts: [Part], shape: Shape = Shape()) {
        var placed: [Placed] = []
        var next = 0
        for part in parts where part.length > 0 {
            let frames = max(1, Int((part.length / Self.frameSeconds).rounded(.up)))
            placed.append(Placed(part: part, firstFrame: next, frames: frames))
            next += frames
        }
        self.parts = placed
        self.shape = shape
        if let until = shape.until {
            frames = min(next, max(1, Int((until / Self.frameSeconds).rounded(.up))))
        } else {
            frames = next
        }
    }

    /// Bytes in the stream.
    public var byteCount: Int { frames * Self.frameBytes }
    /// Seconds in the stream.
    public var duration: Double { Double(frames) * Self.frameSeconds }

    /// What to make for bytes `range` of the stream: for each part it crosses, the frames of that
    /// part (counted from the part's first), in order.
    public func pieces(for range: ClosedRange<Int>) -> [(part: Int, frames: Range<Int>)] {
        let first = range.lowerBound / Self.frameBytes
        let last = min(frames - 1, range.upperBound / Self.frameBytes)
        guard first <= last else { return [] }
        var pieces: [(part: Int, frames: Range<Int>)] = []
        for (index, placed) in parts.enumerated() {
            let from = max(first, placed.firstFrame), to = min(last + 1, placed.firstFrame + placed.frames)
            if from < to { pieces.append((index, (from - placed.firstFrame)..<(to - placed.firstFrame))) }
        }
        return pieces
    }

    /// ffmpeg's arguments that write `frames` of part `index` (from `file`) to its standard output,
    /// shaped: a few frames more than asked (LAME's last frames); the caller keeps the count it
    /// needs.
    public func arguments(part index: Int, frames: Range<Int>, file: String) -> [String] {
        arguments(part: index, frames: frames, input: ["-i", file], inputStart: 0)
    }

    /// The same, from audio fed to ffmpeg's standard input (a file on another server, fetched from
    /// a byte near the piece): `inputStart` is the second of the part's file that input begins at
    /// (before 0 for an M4A's first frame, whose priming the file's edit list hid), `format`
    /// ffmpeg's name for it (`mp3`, or `aac` for ADTS).
    public func arguments(part index: Int, frames: Range<Int>, pipedFrom inputStart: Double, format: String = "mp3") -> [String] {
        arguments(part: index, frames: frames, input: ["-protocol_whitelist", "pipe", "-f", format, "-i", "pipe:0"], inputStart: inputStart)
    }

    private func arguments(part index: Int, frames: Range<Int>, input: [String], inputStart: Double) -> [String] {
        let placed = parts[index]
        let localStart = Double(frames.lowerBound) * Self.frameSeconds
        let seconds = Double(frames.count + 2) * Self.frameSeconds
        var filters = AudioFiles.levelFilters(gain: shape.gain, boost: shape.boost)
        if let until = shape.until {
            // The fade in the piece's own seconds (its `t` starts at 0): full until the fade, then
            // down in a straight line to silence at `until`.
            let end = until - (placed.start + localStart)
            filters.append(String(format: "volume=eval=frame:volume='max(0,min(1,(%.6f-t)/%.6f))'", end, max(0.001, shape.fade)))
        }
        let seek = max(0, placed.part.from + localStart - inputStart)
        return ["-nostdin", "-ss", String(format: "%.6f", seek)] + input + ["-t", String(format: "%.6f", seconds), "-map", "0:a:0", "-vn"]
            + (filters.isEmpty ? [] : ["-af", filters.joined(separator: ",")])
            + Self.encoder + ["pipe:1"]
    }

    /// MP3 at 48 kHz and 128 kb/s, stereo, constant, no reservoir, no Xing frame and no tags.
    public static let encoder = ["-ar", String(sampleRate), "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k", "-reservoir", "0",
                                 "-write_xing", "0", "-id3v2_version", "0", "-map_metadata", "-1", "-f", "mp3"]

    /// One frame of silence in the stream's format, for the frames a file turns out not to hold.
    public static func silentFrame(_ files: AudioFiles = AudioFiles()) async throws -> Data {
        let result = try await files.runner.run(files.ffmpeg, ["-hide_banner", "-loglevel", "error", "-nostdin", "-f", "lavfi",
                                                               "-i", "anullsrc=r=\(sampleRate):cl=stereo", "-t", "0.5"] + encoder + ["pipe:1"], nil)
        let frame = 10 * frameBytes
        guard result.status == 0, result.output.count >= frame + frameBytes else {
            throw AudioRenderError.toolFailed(tool: files.ffmpeg, status: result.status, message: String(decoding: result.errors.suffix(300), as: UTF8.self))
        }
        return result.output.subdata(in: frame..<(frame + frameBytes))
    }

    /// Whether `data` is whole frames of the stream's format (each starting with a frame header
    /// for MPEG-1 Layer III, 128 kb/s, 48 kHz, unpadded).
    public static func isFrames(_ data: Data) -> Bool {
        guard data.count % frameBytes == 0 else { return false }
        return data.withUnsafeBytes { bytes in
            stride(from: 0, to: bytes.count, by: frameBytes).allSatisfy { at in
                bytes[at] == 0xFF && bytes[at + 1] & 0xFE == 0xFA && bytes[at + 2] & 0xFE == 0x94
            }
        }
    }
}
