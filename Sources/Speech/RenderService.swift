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
///
/// Everyone who waits in `render` for a key is one of its waiters. A waiter whose task is
/// cancelled lets go at once (its `render` throws `CancellationError`); when the last one lets go,
/// nobody wants the render any more: it stops between phrases and leaves nothing in the cache,
/// and the next request for the key renders afresh.
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
    /// The renders running, by key.
    private var running: [String: Run] = [:]

    /// A render running for a key: its task, who waits on it, how far it is, and its opening.
    private struct Run {
        /// Tells this run from a later one for the same key (after this one was let go of).
        let id = UUID()
        var task: Task<Void, Never>?
        var waiters: [UUID: CheckedContinuation<Entry, any Error>] = [:]
        /// 0…1.
        var progress = 0.0
        /// Up to the end of the first phrase, as WAV, once it is spoken.
        var opening: Data?
    }

    public init(engines: SpeechEngines, directory: URL, encoder: AudioEncoder = AudioEncoder()) {
        self.engines = engines
        self.directory = directory
        self.encoder = encoder
        // Live files a stopped server left behind (one being spoken now is younger).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(Self.livePrefix) {
            let file = directory.appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? .distantPast
            if modified < Date().addingTimeInterval(-3600) { try? FileManager.default.removeItem(at: file) }
        }
    }

    /// Live files are hidden files beside the cache's entries: `.live-<key>-<run>.mp3`.
    private static let livePrefix = ".live-"

    /// Where a run of a render is written as live MP3 while it is spoken (`liveMP3`): from its
    /// first phrase on, growing, so a player hears the whole from its first byte and no script has
    /// to hand it from an opening to the rest. Removed when the run ends; readers that opened it
    /// read on. Each run has its own (one let go of may still be removing its own).
    nonisolated func liveFile(_ key: String, run: UUID) -> URL {
        directory.appendingPathComponent("\(Self.livePrefix)\(key)-\(run.uuidString.lowercased()).mp3")
    }

    /// The live file of the render of `key` being spoken: this server's run's, else the newest one
    /// another server sharing the directory writes. Nil when there is none (yet).
    public func liveFile(of key: String) -> URL? {
        if let run = running[key] {
            let file = liveFile(key, run: run.id)
            return FileManager.default.fileExists(atPath: file.path) ? file : nil
        }
        let prefix = "\(Self.livePrefix)\(key)-"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(prefix) }
        return names.map { directory.appendingPathComponent($0) }.max { a, b in
            let date = { (url: URL) in (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast }
            return date(a) < date(b)
        }
    }

    /// Whether a render for `key` runs here now (its live file may still grow).
    public func isRunning(_ key: String) -> Bool { running[key] != nil }

    /// Whether `file` is the live file of the run of `key` speaking here now: one that may still
    /// grow (not a run let go of, nor an earlier run of the same words).
    public func isCurrent(_ file: URL, of key: String) -> Bool {
        running[key].map { liveFile(key, run: $0.id).path == file.path } ?? false
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

    /// The live MP3 a finished render was heard through while it was spoken, kept with it: the
    /// same bytes, now with a length, so a player that was hearing it can read on by byte ranges.
    /// Nil for a render stored without one (its live file failed, or it was stored by an earlier
    /// version).
    public nonisolated func keptLive(_ key: String) -> URL? {
        let file = directory.appendingPathComponent(key).appendingPathComponent(Self.keptLiveName)
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    private static let keptLiveName = "live.mp3"

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
            if let data = running[key]?.opening { return .data(data) }
            let file = directory.appendingPathComponent(key).appendingPathComponent("first.wav")
            if FileManager.default.fileExists(atPath: file.path) { return .file(file) }
            guard running[key] != nil, ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether the opening of a render can be had without waiting.
    public func hasOpening(_ key: String) -> Bool {
        running[key]?.opening != nil || FileManager.default.fileExists(atPath: directory.appendingPathComponent(key).appendingPathComponent("first.wav").path)
    }

    /// Progress of a running render, 0…1; nil when none runs for the key.
    public func progress(of key: String) -> Double? { running[key]?.progress }

    /// How many wait for the render of a key (0 when none runs).
    func waiters(of key: String) -> Int { running[key]?.waiters.count ?? 0 }

    /// The cache key of a request, with the engine that would speak it.
    public func key(for request: Request) async throws -> String {
        key(for: request, engine: try await engines.engine(for: request.voice))
    }

    /// Renders (or finds) a request. Concurrent calls with the same key wait for one job.
    ///
    /// Cancelling the calling task lets go of the render: this call throws `CancellationError` at
    /// once, and the render stops if nobody else waits for it.
    public func render(_ request: Request) async throws -> Entry {
        let engine = try await engines.engine(for: request.voice)
        let key = key(for: request, engine: engine)
        if let entry = cached(key, format: request.format) { return entry }
        try Task.checkCancellation()
        if running[key] == nil {
            var run = Run()
            let id = run.id
            run.task = Task {
                let outcome: Result<Entry, any Error>
                do {
                    outcome = .success(try await self.perform(request, engine: engine, key: key, run: id))
                } catch {
                    outcome = .failure(error)
                }
                await self.end(key, run: id, outcome)
            }
            running[key] = run
        }
        let waiter = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // On the actor: a cancellation's `letGo` runs after this, and finds the waiter.
                if Task.isCancelled || running[key] == nil {
                    continuation.resume(throwing: CancellationError())
                    stopIfUnwanted(key)
                } else {
                    running[key]?.waiters[waiter] = continuation
                }
            }
        } onCancel: {
            Task { await self.letGo(key, waiter: waiter) }
        }
    }

    /// A waiter lets go: it hears `CancellationError` at once.
    private func letGo(_ key: String, waiter: UUID) {
        guard let continuation = running[key]?.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: CancellationError())
        stopIfUnwanted(key)
    }

    /// A render nobody waits for any more is cancelled and forgotten: it stops before its next
    /// phrase, and a later request for the key starts a new one.
    private func stopIfUnwanted(_ key: String) {
        guard let run = running[key], run.waiters.isEmpty else { return }
        run.task?.cancel()
        running[key] = nil
    }

    /// A run ended: its waiters hear how. Nothing to do for a run let go of (a newer one may have
    /// the key by now).
    private func end(_ key: String, run id: UUID, _ outcome: Result<Entry, any Error>) {
        guard let run = running[key], run.id == id else { return }
        running[key] = nil   // the stored first.wav (or nothing, after a failure) from now on
        for continuation in run.waiters.values { continuation.resume(with: outcome) }
    }

    /// Removes a finished render's files: whoever asked for it was removed and no one else uses
    /// it. A render still running for the key, or a key that is not one of ours, is left alone.
    public func remove(_ key: String) {
        guard running[key] == nil, key.utf8.count == 64, key.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(key))
    }

    private func setProgress(_ key: String, run id: UUID, _ value: Double) {
        if running[key]?.id == id { running[key]?.progress = value }
    }

    private func setOpening(_ key: String, run id: UUID, _ data: Data) {
        if running[key]?.id == id { running[key]?.opening = data }
    }

    private func perform(_ request: Request, engine: any SpeechEngine, key: String, run: UUID) async throws -> Entry {
        // Files go to a scratch folder that is renamed into place: a cache entry is whole or absent.
        let scratch = directory.appendingPathComponent(".\(key)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let audioFile = scratch.appendingPathComponent("audio.\(request.format.fileExtension)")
        let sink = encoder.sink(request.format, to: audioFile)
        let liveFile = liveFile(key, run: run)
        let live = encoder.liveSink(to: liveFile)
        do {
            // The encoder takes each finished stretch while the next phrases are spoken.
            let rendered = try await ScriptRenderer(engine: engine).render(request.script, voice: request.voice, rate: request.rate) { done, total in
                Task { await self.setProgress(key, run: run, total == 0 ? 0 : 0.95 * Double(done) / Double(total)) }
            } output: { chunk in
                // The live file is for hearing it sooner: when it fails, the render goes on without it.
                _ = try? live.write(chunk.audio)
                if try sink.write(chunk.audio) {
                    let opening = WAVFile.encode(chunk.audio)
                    try opening.write(to: scratch.appendingPathComponent("first.wav"))
                    await self.setOpening(key, run: run, opening)
                }
            }
            let finishing = ContinuousClock.now
            // The live file's last frames are written before the run ends, so its readers, who read
            // until it ends, miss none.
            let liveWhole = (try? await live.finish(else: rendered.audio)) != nil
            try await sink.finish(else: rendered.audio)
            try Data(rendered.timeline.webVTT.utf8).write(to: scratch.appendingPathComponent("captions.vtt"))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(rendered.timeline).write(to: scratch.appendingPathComponent("timeline.json"))
            // Let go of meanwhile: nothing is stored (the key may already be rendering afresh).
            try Task.checkCancellation()
            let final = directory.appendingPathComponent(key)
            if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.removeItem(at: final) }
            do {
                try FileManager.default.moveItem(at: scratch, to: final)
            } catch where FileManager.default.fileExists(atPath: final.path) {
                try? FileManager.default.removeItem(at: scratch)   // the same render, stored by a run let go of just then
            }
            guard var entry = cached(key, format: request.format) else { throw SpeechError.synthesisFailed("the render was not stored") }
            var profile = rendered.profile
            profile.finishing = (ContinuousClock.now - finishing).seconds
            profile.total += profile.finishing
            entry.profile = profile
            // The live file is kept beside the finished audio: a player that was hearing it, and
            // reads on past what it holds (a read resumed at a byte), gets these bytes, not the
            // finished file's (`keptLive`). Its readers keep reading it where it now is.
            let kept = final.appendingPathComponent(Self.keptLiveName)
            if !liveWhole || (try? FileManager.default.moveItem(at: liveFile, to: kept)) == nil {
                try? FileManager.default.removeItem(at: liveFile)
            }
            return entry
        } catch {
            live.cancel()
            sink.cancel()
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: liveFile)
            throw error
        }
    }
}
