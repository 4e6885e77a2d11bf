import AudioRender
import Foundation
import NIOCore
import Playback
import SleepLibrary
import Speech

/// The audio of Wind Down items: the bundled yoga nidra scripts and the owner's scripts spoken
/// over a bed (`SleepNarration`), rendered once and cached by content; the owner's uploads,
/// levelled when they arrived. The sleep timer's renditions of them are `Renditions`'.
actor SleepAudio {
    /// The file each item's whole audio was last served from, by item id, for `recentLifetime`
    /// (an attachment written by the command line, another process, is seen after that);
    /// forgotten whenever this server writes an attachment.
    nonisolated let recentFiles = Recent<String, String>(lifetime: recentLifetime)
    static let recentLifetime: TimeAmount = .seconds(1)

    /// A playable file.
    struct File: Sendable, Equatable {
        var url: URL
        var durationMs: Int
        /// Names the content: a rendition of it is cached under this key.
        var key: String
    }

    /// Where an item's audio comes from.
    enum Source: Sendable, Hashable {
        /// A script spoken for sleep, fitted to `seconds` when given.
        case script(String, seconds: Double?)
        /// A file the owner uploaded (already levelled), under the media directory.
        case upload(file: String, durationMs: Int)
    }

    /// How an item's audio stands.
    enum State: String, Sendable, Codable {
        /// Playable now.
        case ready
        /// Being rendered; ask again in a few seconds.
        case preparing
        /// Rendering failed (the detail says why).
        case failed
        /// Nothing to play: Coming Soon.
        case none
    }

    let library: SleepLibrary
    /// The bundled scripts by name, read once.
    private let scripts: [String: String]
    private let engines: SpeechEngines
    let cacheDirectory: URL
    let mediaDirectory: URL
    let files: AudioFiles
    private let encoder = AudioEncoder()
    /// Renders under way, by cache key: callers share them.
    private var making: [String: Task<File, any Error>] = [:]
    private var failures: [String: String] = [:]
    /// Render keys worked out, and renders found on disk: a request reads neither again.
    private var keys: [Source: String] = [:]
    private var ready: [String: File] = [:]

    init(library: SleepLibrary, engines: SpeechEngines, cacheDirectory: URL, mediaDirectory: URL, files: AudioFiles = AudioFiles()) {
        self.library = library
        self.scripts = Dictionary(library.items.compactMap { item in
            item.audio.flatMap { name in SleepLibrary.script(named: name).map { (name, $0) } }
        }, uniquingKeysWith: { first, _ in first })
        self.engines = engines
        self.cacheDirectory = cacheDirectory
        self.mediaDirectory = mediaDirectory
        self.files = files
    }

    /// The item's source: the owner's attachment first, else the bundled script, else none.
    nonisolated func source(for item: SleepItem, attachment: SleepAttachment?) -> Source? {
        if let attachment {
            switch attachment.source {
            case .upload:
                if let file = attachment.file { return .upload(file: file, durationMs: attachment.durationMs ?? 0) }
            case .script:
                if let script = attachment.script { return .script(script, seconds: nil) }
            }
        }
        guard let name = item.audio, let script = scripts[name] else { return nil }
        return .script(script, seconds: Double(item.duration))
    }

    /// The state of a source, with its file when ready. Does no rendering.
    func state(of source: Source?) async -> (state: State, file: File?, detail: String?) {
        guard let source else { return (.none, nil, nil) }
        switch source {
        case let .upload(file, durationMs):
            let url = mediaDirectory.appendingPathComponent(file)
            guard FileManager.default.fileExists(atPath: url.path) else { return (.failed, nil, "The uploaded file is missing from the data directory; upload it again.") }
            return (.ready, File(url: url, durationMs: durationMs, key: "upload-" + (file as NSString).deletingPathExtension), nil)
        case .script:
            guard let key = try? await key(source) else { return (.failed, nil, "No speech engine is installed.") }
            if let file = cached(key) { return (.ready, file, nil) }
            if making[key] != nil { return (.preparing, nil, nil) }
            if let failure = failures[key] { return (.failed, nil, failure) }
            return (.preparing, nil, nil)
        }
    }

    /// The source's file, rendered now if it must be (concurrent callers share the work).
    func file(for source: Source) async throws -> File {
        let (state, file, _) = await state(of: source)
        if state == .ready, let file { return file }
        guard case let .script(script, seconds) = source else {
            throw SleepAudioProblem.missing("The uploaded file is missing from the data directory; upload it again.")
        }
        let key = try await key(source)
        if making[key] == nil { failures[key] = nil }
        do {
            return try await shared(key) { try await self.render(script, seconds: seconds, key: key) }
        } catch {
            failures[key] = (error as? SpeechError)?.description ?? (error as? AudioRenderError)?.description ?? "\(error)"
            throw error
        }
    }

    /// Runs `work` once for `key`; callers that come while it runs wait for the same result.
    private func shared(_ key: String, _ work: @escaping @Sendable () async throws -> File) async throws -> File {
        if let running = making[key] { return try await running.value }
        let task = Task { try await work() }
        making[key] = task
        defer { making[key] = nil }
        return try await task.value
    }

    // MARK: - Uploads being levelled

    /// Uploads being levelled, by item id (each with a token naming that upload), and the last
    /// failure of each item's upload.
    private var levelling: [String: (token: UUID, task: Task<Void, Never>)] = [:]
    private var levellingFailures: [String: String] = [:]

    /// Runs `work` (an upload's levelling) in the background for the item; the item is preparing
    /// until it ends, and failed with the reason if it throws. A newer upload replaces an older.
    func level(itemID: String, _ work: @escaping @Sendable () async throws -> Void) {
        levellingFailures[itemID] = nil
        levelling[itemID]?.task.cancel()
        let token = UUID()
        let task = Task {
            var failure: String?
            do {
                try await work()
            } catch {
                failure = (error as? AudioRenderError)?.description ?? (error as? any CustomStringConvertible)?.description ?? "\(error)"
            }
            self.endLevelling(itemID, token: token, failure: failure)
        }
        levelling[itemID] = (token, task)
    }

    private func endLevelling(_ itemID: String, token: UUID, failure: String?) {
        guard levelling[itemID]?.token == token else { return }
        levelling[itemID] = nil
        levellingFailures[itemID] = failure
    }

    /// Forgets an item's upload in progress and its failure (the owner gave it a script, or took its audio away).
    func forgetLevelling(itemID: String) {
        levelling[itemID] = nil
        levellingFailures[itemID] = nil
    }

    /// Whether the item's upload is being levelled, or why its last one failed.
    func levellingState(of itemID: String) -> (busy: Bool, failure: String?) {
        (levelling[itemID] != nil, levellingFailures[itemID])
    }

    /// Starts rendering the source in the background unless it is ready or under way.
    func prepare(_ source: Source) async {
        let (state, _, _) = await state(of: source)
        guard state == .preparing || state == .failed, case .script = source,
              let key = try? await key(source), making[key] == nil else { return }
        Task { _ = try? await self.file(for: source) }
    }

    /// Renders every bundled script that is not cached yet (the warm-up does this at start).
    func makeBundled() async {
        for item in library.items {
            guard let source = source(for: item, attachment: nil) else { continue }
            _ = try? await file(for: source)
        }
    }

    // MARK: - Rendering

    /// A script render's cache key: what would make it sound different (engine, renderer, length,
    /// text), worked out once per source.
    private func key(_ source: Source) async throws -> String {
        if let key = keys[source] { return key }
        guard case let .script(script, seconds) = source else { preconditionFailure("only scripts are rendered") }
        let engine = try await engines.engine(for: nil)
        let key = ContentKey.of([engine.name, engine.version, SleepNarration.version, seconds.map { String($0) } ?? "natural", script])
        keys[source] = key
        return key
    }

    private struct Metadata: Codable { var durationMs: Int }

    /// The render on disk, read once; nil until it is there.
    private func cached(_ key: String) -> File? {
        if let file = ready[key] { return file }
        let audio = cacheDirectory.appendingPathComponent("\(key).m4a")
        guard let data = FileManager.default.contents(atPath: cacheDirectory.appendingPathComponent("\(key).json").path),
              let metadata = try? JSONDecoder().decode(Metadata.self, from: data),
              FileManager.default.fileExists(atPath: audio.path) else { return nil }
        let file = File(url: audio, durationMs: metadata.durationMs, key: key)
        ready[key] = file
        return file
    }

    private func render(_ script: String, seconds: Double?, key: String) async throws -> File {
        let engine = try await engines.engine(for: nil)
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        // The audio first (encoded while the rest is spoken), then the metadata that makes the
        // entry count: an entry is whole or absent.
        let sink = encoder.sink(.m4a, to: cacheDirectory.appendingPathComponent("\(key).m4a"))
        let rendered: RenderedSpeech
        do {
            rendered = try await SleepNarration(engine: engine).render(script, seconds: seconds, output: { chunk in try sink.write(chunk.audio) })
            try await sink.finish(else: rendered.audio)
        } catch {
            sink.cancel()
            throw error
        }
        let metadata = try JSONEncoder().encode(Metadata(durationMs: Int((rendered.audio.duration * 1000).rounded())))
        try metadata.write(to: cacheDirectory.appendingPathComponent("\(key).json"), options: .atomic)
        guard let file = cached(key) else { throw SleepAudioProblem.missing("The render was not stored.") }
        return file
    }
}

enum SleepAudioProblem: Error, Equatable {
    case missing(String)
}
