import AudioRender
import Foundation
import Playback
import Vapor

/// Renditions, for every area that plays a file: the file's audio on its own timeline, ending at
/// the sleep timer with its last seconds fading to silence by `SleepTimer.fade`, and/or at a level
/// (ducked, a volume slider's, Boost's). A player that switches to one keeps its place (the
/// seconds are the same), and the fade, the stop and the level are in the audio, so they hold with
/// the phone locked, the page's scripts stopped and the element's volume ignored (an iPhone).
///
/// Each is made once per file, end (to the 100 ms), level (to the dB) and fade, by whoever asks
/// first while the others wait for the same work, and kept for a day. The fade's length and shape are in the file's
/// name, so one made before the fade changed is never answered after.
actor Renditions {
    /// A rendition on disk, or the whole file when the end is at or past it.
    struct Answer: Sendable {
        var url: URL
        /// `audio/mp4` or `audio/mpeg`.
        var contentType: String
    }

    let directory: URL
    /// The fade every rendition ends in: `SleepTimer.fade`, but for tests.
    let fade: SleepFade
    private let files: AudioFiles
    private var making: [String: Task<URL, any Error>] = [:]
    /// The codec of each file asked about, by key: a file is probed once.
    private var codecs: [String: String] = [:]

    init(directory: URL, files: AudioFiles = AudioFiles(), fade: SleepFade = SleepTimer.fade) {
        self.directory = directory
        self.files = files
        self.fade = fade
    }

    /// What a rendition changes in its file: where it ends (the sleep timer's `until`), its level
    /// (`level`, 0–1, kept to the whole dB: an iPhone ignores an element's volume, so a level that
    /// must hold with the screen locked is in the bytes) and Boost (a lift into a limiter).
    struct Shape: Sendable, Equatable {
        var until: Double?
        /// dB, a whole number from −60 (silence) to 0 (the file's own level).
        var gain = 0
        var boost = false

        /// From a request's `until`, `level` and `boost` (each optional).
        init(until: Double? = nil, level: Double? = nil, boost: Bool = false) {
            self.until = until
            self.gain = level.map(Self.gain(of:)) ?? 0
            self.boost = boost
        }

        /// A level's whole dB: 20·log10(level), rounded; −60 at or under a thousandth.
        static func gain(of level: Double) -> Int {
            level <= 0.001 ? -60 : max(-60, min(0, Int((20 * log10(level)).rounded())))
        }

        /// Whether the level or Boost change the file's samples (an `until` alone copies them).
        var changesLevel: Bool { gain != 0 || boost }
    }

    /// `source` (known by `key`, which changes when its audio does) in `shape`: ending at its
    /// `until`, at its level, with Boost.
    /// - Parameter duration: the file's length in seconds: an end within 0.1 s of it, or past it,
    ///   is none (the file ends there anyway).
    /// - Returns: nil when the shape changes nothing (the file is the answer).
    func rendition(of source: URL, key: String, duration: Double, shape: Shape) async throws -> Answer? {
        let end = shape.until.flatMap { Self.end($0, duration: duration) }
        guard end != nil || shape.changesLevel else { return nil }
        let tenths = end.map { Int(($0 * 10).rounded()) }
        let codec = try await codec(of: source, key: key)
        let level = shape.changesLevel ? "-g\(-shape.gain)\(shape.boost ? "b" : "")" : ""
        let name = "\(key)-\(tenths.map(String.init) ?? "whole")\(level)-\(fade.cacheTag).\(AudioFiles.renditionExtension(codec: codec))"
        let type = codec == "mp3" ? "audio/mpeg" : "audio/mp4"
        let url = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) { return Answer(url: url, contentType: type) }
        if let running = making[name] { return Answer(url: try await running.value, contentType: type) }
        let files = self.files, directory = self.directory, fade = self.fade
        let task = Task {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            DayOldFiles.remove(in: directory)
            let until = tenths.map { Double($0) / 10 }
            if shape.changesLevel {
                try await files.levelled(source, codec: codec, duration: duration, gain: Double(shape.gain), boost: shape.boost,
                                         end: until, fade: fade.seconds, curve: fade.ffmpegCurve, into: url)
            } else if let until {
                try await files.fadeOut(source, at: until, fade: fade.seconds, curve: fade.ffmpegCurve, into: url)
            }
            return url
        }
        making[name] = task
        defer { making[name] = nil }
        return Answer(url: try await task.value, contentType: type)
    }

    /// Where a timer's rendition of a file `duration` seconds long ends: `until` to the tenth, or
    /// nil when that is within 0.1 s of the end or past it (the whole file is the answer).
    static func end(_ until: Double, duration: Double) -> Double? {
        let end = (until * 10).rounded() / 10
        return end < duration - 0.1 ? end : nil
    }

    private func codec(of source: URL, key: String) async throws -> String {
        if let codec = codecs[key] { return codec }
        let codec = try await files.probe(source).codec
        codecs[key] = codec
        return codec
    }
}

extension Request {
    /// A rendition's shape from the query: `until` (seconds, in `untilRange`), `level` (0–1) and
    /// `boost` (true/false), each optional. 400 for one out of range, with what to send instead.
    func renditionShape(untilIn untilRange: ClosedRange<Double>) throws -> Renditions.Shape {
        Renditions.Shape(until: try queryDouble("until", in: untilRange), level: try queryDouble("level", in: 0...1),
                         boost: try queryBoolean("boost") ?? false)
    }
}
