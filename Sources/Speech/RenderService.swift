import AudioRender
import Crypto
import Foundation

/// A cache key for content made from `parts`: the SHA-256 (hex) of each part prefixed with its
/// length, so no two lists of parts give the same key.
public enum ContentKey {
    public static func of(_ parts: [String]) -> String {
        let joined = parts.map { "\($0.utf8.count):\($0)" }.joined()
        return SHA256.hash(data: Data(joined.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// Renders scripts into files once: results are content-addressed under a cache directory, and
/// concurrent requests for the same render share one job.
///
/// A render's key is the SHA-256 of the script, voice, rate, output format, engine name and engine
/// version, so any change that would sound different renders again.
public actor RenderService {
    /// What a render asks for.
    public struct Request: Sendable, Hashable, Codable {
        public var script: String
        public var voice: String?
        public var rate: Double
        public var format: AudioEncoder.Format

        public init(script: String, voice: String? = nil, rate: Double = 1, format: AudioEncoder.Format = .m4a) {
            self.script = script
            self.voice = voice
            self.rate = rate
            self.format = format
        }
    }

    /// A finished render's files.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var audio: URL
        public var captions: URL
        public var timeline: URL
        public var format: AudioEncoder.Format
        /// Length of the audio in milliseconds.
        public var durationMs: Int
        /// Where the time went, for a render just made (nil for one found in the cache).
        public var profile: RenderProfile?
    }

    /// The opening of a render, up to the end of its first phrase (or a little further when the
    /// next phrases were ready as soon), as a WAV file: playable while the rest is rendered.
    public enum Opening: Sendable, Equatable {
        case data(Data)
        case file(URL)
    }

    public nonisolated let engines: SpeechEngines
    public nonisolated let directory: URL
    private let encoder: AudioEncoder
    private var inFlight: [String: Task<Entry, any Error>] = [:]
    private var progress: [String: Double] = [:]
    /// Openings of the renders running.
    private var openings: [String: Data] = [:]

    public init(engines: SpeechEngines, directory: URL, encoder: AudioEncoder = AudioEncoder()) {
        self.engines = engines
        self.directory = directory
        self.encoder = encoder
    }

    /// The cache key of a request spoken by `engine`.
    public nonisolated func key(for request: Request, engine: any SpeechEngine) -> String {
        ContentKey.of([engine.name, engine.version, "renderer-4", request.voice ?? "", String(request.rate),
                       request.format.rawValue, request.script])
    }

    /// Where a render's files are; nil until its audio is on disk. Reads no file (for serving).
    public nonisolated func files(_ key: String, format: AudioEncoder.Format) -> (audio: URL, captions: URL, timeline: URL)? {
        let folder = directory.appendingPathComponent(key)
        let audio = folder.appendingPathComponent("audio.\(format.fileExtension)")
        guard FileManager.default.fileExists(atPath: audio.path) else { return nil }
        return (audio, folder.appendingPathComponent("captions.vtt"), folder.appendingPathComponent("timeline.json"))
    }

    /// The finished render for a key, with its length from the timeline, if it is on disk.
    public nonisolated func cached(_ key: String, format: AudioEncoder.Format) -> Entry? {
        guard let files = files(key, format: format),
              let data = FileManager.default.contents(atPath: files.timeline.path),
              let timeline = try? JSONDecoder().decode(RenderTimeline.self, from: data) else { return nil }
        return Entry(key: key, audio: files.audio, captions: files.captions, timeline: files.timeline, format: format,
                     durationMs: timeline.durationMs)
    }

    /// The opening of a render: at once when it is known, else as soon as its first phrase is
    /// ready (looked for every 20 ms, up to `patience`). Nil when no render for the key runs or
    /// is stored, the render failed before its first phrase, or the wait ran out.
    public func opening(of key: String, patience: Duration = .seconds(30)) async -> Opening? {
        let deadline = ContinuousClock.now + patience
        while true {
            if let data = openings[key] { return .data(data) }
            let file = directory.appendingPathComponent(key).appendingPathComponent("first.wav")
            if FileManager.default.fileExists(atPath: file.path) { return .file(file) }
            guard inFlight[key] != nil, ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the opening of a render can be had without waiting.
    public func hasOpening(_ key: String) -> Bool {
        openings[key] != nil || FileManager.default.fileExists(atPath: directory.appendingPathComponent(key).appendingPathComponent("first.wav").path)
    }

    private func setOpening(_ key: String, _ data: Data?) { openings[key] = data }

    /// Progress of a running render, 0…1; nil when none runs for the key.
    public func progress(of key: String) -> Double? { progress[key] }

    /// The cache key of a request, with the engine that would speak it.
    public func key(for request: Request) async throws -> String {
        key(for: request, engine: try await engines.engine(for: request.voice))
    }

    /// Renders (or finds) a request. Concurrent calls with the same key wait for one job.
    public func render(_ request: Request) async throws -> Entry {
        let engine = try await engines.engine(for: request.voice)
        let key = key(for: request, engine: engine)
        if let entry = cached(key, format: request.format) { return entry }
        if let running = inFlight[key] { return try await running.value }
        progress[key] = 0
        let task = Task { try await self.perform(request, engine: engine, key: key) }
        inFlight[key] = task
        defer {
            inFlight[key] = nil
            progress[key] = nil
            setOpening(key, nil)   // the stored first.wav (or nothing, after a failure) from now on
        }
        return try await task.value
    }

    /// Removes a finished render's files: whoever asked for it was removed and no one else uses
    /// it. A render still running for the key, or a key that is not one of ours, is left alone.
    public func remove(_ key: String) {
        guard inFlight[key] == nil, key.utf8.count == 64, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
    }

    private func setProgress(_ key: String, _ value: Double) { progress[key] = value }

    private func perform(_ request: Request, engine: any SpeechEngine, key: String) async throws -> Entry {
        // Files go to a scratch folder that is renamed into place: a cache entry is whole or absent.
        let scratch = directory.appendingPathComponent(".\(key)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let audioFile = scratch.appendingPathComponent("audio.\(request.format.fileExtension)")
        let sink = encoder.sink(request.format, to: audioFile)
        do {
            // The encoder takes each finished stretch while the next phrases are spoken.
            let rendered = try await ScriptRenderer(engine: engine).render(request.script, voice: request.voice, rate: request.rate) { done, total in
                Task { await self.setProgress(key, total == 0 ? 0 : 0.95 * Double(done) / Double(total)) }
            } output: { chunk in
                if try sink.write(chunk.audio) {
                    let opening = WAVFile.encode(chunk.audio)
                    try opening.write(to: scratch.appendingPathComponent("first.wav"))
                    await self.setOpening(key, opening)
                }
            }
            let finishing = ContinuousClock.now
            try await sink.finish(else: rendered.audio)
            try Data(rendered.timeline.webVTT.utf8).write(to: scratch.appendingPathComponent("captions.vtt"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(rendered.timeline).write(to: scratch.appendingPathComponent("timeline.json"))
            let final = directory.appendingPathComponent(key)
            if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.removeItem(at: final) }
            try FileManager.default.moveItem(at: scratch, to: final)
            guard var entry = cached(key, format: request.format) else { throw SpeechError.synthesisFailed("the render was not stored") }
            var profile = rendered.profile
            profile.finishing = (ContinuousClock.now - finishing).seconds
            profile.total += profile.finishing
            entry.profile = profile
            return entry
        } catch {
            sink.cancel()
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
    }
}
