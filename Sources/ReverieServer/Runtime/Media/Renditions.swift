import AudioRender
import Foundation
import Playback

/// The sleep timer's renditions, for every area that plays a file: the file's audio on its own
/// timeline, ending at the timer with its last seconds fading to silence by `SleepTimer.fade`. A
/// player that switches to one keeps its place (the seconds are the same), and the fade and the
/// stop are in the audio, so they happen with the phone locked and the page's scripts stopped.
///
/// Each is made once per file, end (to the 100 ms) and fade, by whoever asks first while the
/// others wait for the same work, and kept for a day. The fade's length and shape are in the file's
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

    /// `source` (known by `key`, which changes when its audio does) ending at `end` seconds.
    /// - Parameter duration: the file's length in seconds: an end within 0.1 s of it, or past it,
    ///   answers the whole file, which ends there anyway.
    /// - Returns: nil when the whole file is the answer.
    func rendition(of source: URL, key: String, duration: Double, endingAt end: Double) async throws -> Answer? {
        guard let end = Self.end(end, duration: duration) else { return nil }
        let tenths = Int((end * 10).rounded())
        let codec = try await codec(of: source, key: key)
        let name = "\(key)-\(tenths)-\(fade.cacheTag).\(AudioFiles.renditionExtension(codec: codec))"
        let type = codec == "mp3" ? "audio/mpeg" : "audio/mp4"
        let url = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) { return Answer(url: url, contentType: type) }
        if let running = making[name] { return Answer(url: try await running.value, contentType: type) }
        let files = self.files, directory = self.directory, fade = self.fade
        let task = Task {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            DayOldFiles.remove(in: directory)
            try await files.fadeOut(source, at: Double(tenths) / 10, fade: fade.seconds, curve: fade.ffmpegCurve, into: url)
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
