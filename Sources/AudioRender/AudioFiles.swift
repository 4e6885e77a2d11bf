import Foundation

/// Audio files handled by ffprobe and ffmpeg without decoding them into memory: what a file is,
/// levelling a file to a loudness, and the sleep timer's rendition that fades out at a moment.
public struct AudioFiles: Sendable {
    /// What ffprobe says about a file's first audio stream.
    public struct Probe: Sendable, Equatable {
        /// ffprobe's container names (`mov,mp4,m4a,3gp,3g2,mj2`, `mp3`, `ogg`, `wav`).
        public var container: String
        /// `aac`, `mp3`, `vorbis`, `opus`, `pcm_s16le`, `flac`, …
        public var codec: String
        public var sampleRate: Int
        public var channels: Int
        /// Seconds.
        public var duration: Double
    }

    public var runner: CommandRunner
    public var ffmpeg: String
    public var ffprobe: String

    /// Containers people upload audio in: MP3, M4A/MP4, Ogg and WAV (ffprobe's names).
    public static let acceptedContainers: Set<String> = ["mp3", "mov,mp4,m4a,3gp,3g2,mj2", "ogg", "wav"]

    public init(runner: CommandRunner = .live, ffmpeg: String = "ffmpeg", ffprobe: String = "ffprobe") {
        self.runner = runner
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// The file's container and first audio stream.
    /// - Throws: `AudioRenderError.notAudio` when ffprobe cannot read it or finds no audio.
    public func probe(_ file: URL) async throws -> Probe {
        let result = try await runner.run(ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                    "format=format_name,duration:stream=codec_name,sample_rate,channels,duration",
                                                    "-of", "json", file.path], nil)
        struct Output: Decodable {
            struct Stream: Decodable { var codec_name: String?; var sample_rate: String?; var channels: Int?; var duration: String? }
            struct Format: Decodable { var format_name: String?; var duration: String? }
            var streams: [Stream]?
            var format: Format?
        }
        guard result.status == 0, let output = try? JSONDecoder().decode(Output.self, from: result.output) else {
            let message = String(decoding: result.errors.suffix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw AudioRenderError.notAudio(message.isEmpty ? "ffprobe cannot read it" : "ffprobe says “\(message.split(separator: "\n").last ?? "")”")
        }
        guard let stream = output.streams?.first, let codec = stream.codec_name,
              let rate = stream.sample_rate.flatMap(Int.init), rate > 0 else { throw AudioRenderError.notAudio("it has no audio stream") }
        let duration = stream.duration.flatMap(Double.init) ?? output.format?.duration.flatMap(Double.init) ?? 0
        guard duration > 0, duration.isFinite else { throw AudioRenderError.notAudio("its length cannot be read") }
        return Probe(container: output.format?.format_name ?? "", codec: codec, sampleRate: rate,
                     channels: stream.channels ?? 1, duration: duration)
    }

    /// The integrated loudness of a file in LUFS, measured by ffmpeg's EBU R128 meter while it
    /// streams through (for files too long to hold in memory).
    public func loudness(of file: URL) async throws -> Double {
        let result = try await runner.run(ffmpeg, ["-hide_banner", "-nostats", "-i", file.path, "-map", "0:a:0",
                                                   "-af", "ebur128=framelog=verbose", "-f", "null", "-"], nil)
        guard result.status == 0 else { throw Self.failure("ffmpeg", result) }
        // The summary's "I:  -23.4 LUFS" line.
        let text = String(decoding: result.errors, as: UTF8.self)
        guard let line = text.split(separator: "\n").last(where: { $0.contains("I:") && $0.contains("LUFS") }),
              let value = line.split(separator: " ").compactMap({ Double($0) }).first, value.isFinite, value > -70 else {
            throw AudioRenderError.tooQuietToMeasure
        }
        return value
    }

    /// `source` levelled to `target` LUFS (one gain for the whole file, peaks limited at −1 dBFS),
    /// mono AAC at 44.1 kHz, in an M4A that starts playing before it has all arrived.
    /// - Returns: the loudness measured before levelling.
    @discardableResult
    public func level(_ source: URL, to target: Double = -16, into destination: URL) async throws -> Double {
        let measured = try await loudness(of: source)
        let gain = target - measured
        try await ffmpegRun(["-i", source.path, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", "44100",
                             "-af", String(format: "volume=%.2fdB,alimiter=limit=0.891:level=false", gain),
                             "-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart", "-f", "mp4"], to: destination)
        return measured
    }

    /// The container a sleep timer's rendition of a file with this codec is written in:
    /// `mp3` for MP3 (its frames are copied into an MP3), `m4a` for everything else.
    public static func renditionExtension(codec: String) -> String { codec == "mp3" ? "mp3" : "m4a" }

    /// How a rendition's audio is encoded: MP3 at 128 kb/s for an MP3, else AAC at 96 kb/s with
    /// ffmpeg's fast coder (about eight times the default's speed: a minute in a quarter of a second,
    /// which a person moving a volume slider waits for).
    static func renditionEncoder(mp3: Bool) -> [String] {
        mp3 ? ["-c:a", "libmp3lame", "-b:a", "128k"] : ["-c:a", "aac", "-aac_coder", "fast", "-b:a", "96k"]
    }

    /// The sleep timer's rendition: `source` up to `end` seconds, on the source's own timeline,
    /// its last `fade` seconds falling to silence in ffmpeg's `afade` `curve` (the server passes
    /// Playback's `SleepTimer.fade`, its `seconds` and `ffmpegCurve`: the one place the fade's
    /// length and shape are written). It is written as
    /// `renditionExtension(codec:)` says: an MP3 into an MP3, AAC (and anything else) into an M4A.
    ///
    /// Only the fade is encoded, for AAC and MP3. The audio before it is copied packet for packet,
    /// and the fade is encoded in the same codec from one frame before the cut (for AAC its first
    /// frame overlaps the copied audio's last exactly as the original's did, and the join is
    /// seamless; the concatenation drops the encoder's priming frames). An hour-long file takes
    /// about a second. A file in another codec is encoded whole.
    public func fadeOut(_ source: URL, at end: Double, fade: Double, curve: String, into destination: URL) async throws {
        let probe = try await probe(source)
        let end = min(end, probe.duration)
        func seconds(_ value: Double) -> String { String(format: "%.6f", value) }
        let mp3 = probe.codec == "mp3"
        // MP3s stay MP3. The parts have no Xing header or tags, so they join frame to frame; the
        // whole gets a Xing header, which gives players its length and a seek table.
        let whole = mp3 ? ["-f", "mp3", "-id3v2_version", "0", "-map_metadata", "-1"] : ["-f", "mp4"]
        let output = mp3 ? whole + ["-write_xing", "0"] : whole
        let encode = Self.renditionEncoder(mp3: mp3)
        let frame = Double(mp3 ? 1152 : 1024) / Double(probe.sampleRate)
        // The cut falls on a frame boundary of the source.
        let cut = max(0, (max(0, end - fade) / frame).rounded(.down) * frame)
        let fadeLength = end - cut
        guard cut > 0, mp3 || probe.codec == "aac" else {
            // Short enough to encode whole (or a codec whose packets are not copied).
            let fadeStart = max(0, end - fade)
            try await ffmpegRun(["-i", source.path, "-map", "0:a:0", "-t", seconds(end),
                                 "-af", "afade=t=out:st=\(seconds(fadeStart)):d=\(seconds(end - fadeStart)):curve=\(curve)"]
                                + encode + (mp3 ? [] : ["-movflags", "+faststart"]) + whole, to: destination)
            return
        }
        let scratch = destination.deletingLastPathComponent().appendingPathComponent(".fade-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let suffix = mp3 ? "mp3" : "m4a"
        let head = scratch.appendingPathComponent("head.\(suffix)"), tail = scratch.appendingPathComponent("tail.\(suffix)")
        try await ffmpegRun(["-i", source.path, "-t", seconds(cut), "-map", "0:a:0", "-c", "copy"] + output, to: head)
        // AAC: the tail starts one frame early, and its inpoint drops that frame and the priming.
        // MP3: the tail starts at the cut. MP3 parts carry no record of their encoder's delay, so
        // the rendition can sound up to 50 ms later than the source: less than a player's seek.
        let lead = mp3 ? 0 : frame
        try await ffmpegRun(["-ss", seconds(cut - lead), "-i", source.path, "-t", seconds(fadeLength + lead), "-map", "0:a:0",
                             "-af", "afade=t=out:st=\(seconds(lead)):d=\(seconds(fadeLength)):curve=\(curve)",
                             "-ar", String(probe.sampleRate)] + encode + output, to: tail)
        // `inpoint 0` drops the head's priming packet, and the tail's inpoint its priming and the
        // frame before the cut (the copied head already has it).
        let list = mp3 ? "file '\(head.path)'\nfile '\(tail.path)'\n"
                       : "file '\(head.path)'\ninpoint 0\nfile '\(tail.path)'\ninpoint \(seconds(frame))\n"
        let listFile = scratch.appendingPathComponent("list.txt")
        try Data(list.utf8).write(to: listFile)
        try await ffmpegRun(["-f", "concat", "-safe", "0", "-i", listFile.path, "-c", "copy"] + (mp3 ? [] : ["-movflags", "+faststart"]) + whole,
                            to: destination)
    }

    /// Boost's lift before its limiter, in dB (Listen's Quality/Boost, as the web player's graph does it).
    public static let boostLift = 8.0
    /// Boost's limiter ceiling: −1 dBFS.
    static let boostCeiling = 0.891

    /// A level's rendition: `source` (of `codec` and `duration` seconds, as `probe` says: the
    /// caller has asked once already) on its own timeline at `gain` dB (a whole dB; −60 or under
    /// is silence), with Boost's +8 dB lift into a limiter at −1 dBFS when `boost`, and, with an
    /// `end`, ending there with its last `fade` seconds falling to silence (the sleep timer's
    /// fade, as `fadeOut`). Written as `renditionExtension(codec:)` says; a level changes every
    /// sample, so the whole file is encoded (a four-minute song in a second or two).
    public func levelled(_ source: URL, codec: String, duration: Double, gain: Double, boost: Bool, end: Double?, fade: Double,
                         curve: String, into destination: URL) async throws {
        let mp3 = codec == "mp3"
        let (filters, cut) = Self.shapeFilters(gain: gain, boost: boost, end: end.map { min($0, duration) }, fade: fade, curve: curve)
        let encode = Self.renditionEncoder(mp3: mp3) + (mp3 ? ["-f", "mp3", "-id3v2_version", "0", "-map_metadata", "-1"]
                                                             : ["-movflags", "+faststart", "-f", "mp4"])
        try await ffmpegRun(["-i", source.path, "-map", "0:a:0", "-vn"] + cut
                            + (filters.isEmpty ? [] : ["-af", filters.joined(separator: ",")]) + encode, to: destination)
    }

    /// A rendition's filters and cut: the level and Boost (`levelFilters`) and, with an `end`, the
    /// sleep timer's fade to silence there (its last `fade` seconds in `curve`) and the cut at it.
    static func shapeFilters(gain: Double, boost: Bool, end: Double?, fade: Double, curve: String) -> (filters: [String], cut: [String]) {
        var filters = levelFilters(gain: gain, boost: boost)
        guard let end else { return (filters, []) }
        let start = max(0, end - fade)
        filters.append(String(format: "afade=t=out:st=%.6f:d=%.6f:curve=%@", start, end - start, curve))
        return (filters, ["-t", String(format: "%.6f", end)])
    }

    /// ffmpeg's arguments that shape a live stream (a radio station) read from its standard input
    /// as a file's rendition is shaped: at `gain` dB, with Boost, and with an `until` ending that
    /// many seconds of sound into it, its last `fade` seconds falling to silence in `curve`. Out as
    /// MP3 at 128 kb/s on its standard output. The stream's clock is its samples counted from 0
    /// (a station's MPEG-TS segments carry the hours it has been on air, and a segment passed over
    /// leaves a jump in them): the end is after so many seconds of sound.
    public static func shapedStreamArguments(gain: Double, boost: Bool, until: Double?, fade: Double, curve: String) -> [String] {
        let (filters, cut) = shapeFilters(gain: gain, boost: boost, end: until, fade: fade, curve: curve)
        return ["-i", "pipe:0", "-vn", "-map", "0:a:0"] + cut + ["-af", (["asetpts=N/SR/TB"] + filters).joined(separator: ",")]
            + renditionEncoder(mp3: true) + ["-f", "mp3", "-id3v2_version", "0", "-map_metadata", "-1", "pipe:1"]
    }

    /// ffmpeg's filters for a level of `gain` dB (a whole dB; −60 or under is silence) and Boost's
    /// lift into its limiter: none for the file's own level.
    static func levelFilters(gain: Double, boost: Bool) -> [String] {
        var filters: [String] = []
        if gain <= -60 { filters.append("volume=0") } else if gain != 0 { filters.append(String(format: "volume=%.1fdB", gain)) }
        if boost { filters += [String(format: "volume=%.1fdB", Self.boostLift), "alimiter=limit=\(Self.boostCeiling):level=false"] }
        return filters
    }

    /// One file of `length` seconds with each part starting at its moment and silence between:
    /// a whole session's sound from its cue files (mono AAC at 22.05 kHz, the voice's own rate, in
    /// an M4A that starts playing before it has all arrived; half the samples of 44.1 kHz make a
    /// five-minute session in about a third of a second). Parts that overlap are mixed, not
    /// scaled down; a part that runs past `length` is cut there.
    public func place(_ parts: [(file: URL, at: Double)], length: Double, into destination: URL) async throws {
        var arguments: [String] = []
        var chains: [String] = []
        for (index, part) in parts.enumerated() {
            arguments += ["-i", part.file.path]
            let delay = Int((max(0, part.at) * 1000).rounded())
            chains.append("[\(index):a:0]aresample=22050,aformat=channel_layouts=mono,adelay=delays=\(delay):all=1[p\(index)]")
        }
        let length = String(format: "%.3f", length)
        let inputs = parts.indices.map { "[p\($0)]" }.joined()
        let graph = parts.isEmpty
            ? "anullsrc=r=22050:cl=mono,atrim=end=\(length)[out]"
            : chains.joined(separator: ";") + ";\(inputs)amix=inputs=\(parts.count):normalize=0:dropout_transition=0,apad=whole_dur=\(length),atrim=end=\(length)[out]"
        try await ffmpegRun(arguments + ["-filter_complex", graph, "-map", "[out]", "-ac", "1", "-ar", "22050",
                                         "-c:a", "aac", "-b:a", "48k", "-movflags", "+faststart", "-f", "mp4"], to: destination)
    }

    /// Runs ffmpeg writing `destination` through a temporary name, moved in place when whole, so
    /// a reader never sees half a file (`AudioEncoder` writes through it too).
    func ffmpegRun(_ arguments: [String], input: Data? = nil, to destination: URL) async throws {
        let partial = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part")
        defer { try? FileManager.default.removeItem(at: partial) }
        let result = try await runner.run(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y"] + arguments + [partial.path], input)
        guard result.status == 0 else { throw Self.failure("ffmpeg", result) }
        if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
        try FileManager.default.moveItem(at: partial, to: destination)
    }

    private static func failure(_ tool: String, _ result: CommandRunner.Result) -> AudioRenderError {
        .toolFailed(tool: tool, status: result.status, message: String(decoding: result.errors.suffix(500), as: UTF8.self))
    }
}
