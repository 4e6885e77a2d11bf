import AudioRender
import Foundation
import NIOCore
import Playback
import SleepLibrary
import Speech

/// The audio of Wind Down items: the catalog's scripts and the owner's spoken over a bed
/// (`SleepNarration`), rendered once and cached by content; the owner's uploads, levelled when
/// they arrived. The sleep timer's renditions of them are `Renditions`'.
///
/// A catalog script is spoken the first time anyone plays it (the featured item at start): while
/// it is, its mix grows on disk as a WAV whose header already says its whole length
/// (`liveDirectory`), which `LiveSleepAudio` serves to players as it is made.
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
        /// Spoken on first play: playable now from the live file, which is made as it plays
        /// (and the whole file is kept for next time).
        case speaking
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
    /// Where the mix of a render being spoken grows (this server's own, not shared).
    let liveDirectory: URL
    let mediaDirectory: URL
    let files: AudioFiles
    private let encoder = AudioEncoder()
    /// Renders under way, by cache key: callers share them.
    private var making: [String: Task<File, any Error>] = [:]
    private var failures: [String: String] = [:]
    /// Render keys worked out, and renders found on disk: a request reads neither again.
    private var keys: [Source: String] = [:]
    private var ready: [String: File] = [:]

    init(library: SleepLibrary, engines: SpeechEngines, cacheDirectory: URL, liveDirectory: URL, mediaDirectory: URL, files: AudioFiles = AudioFiles()) {
        self.library = library
        self.scripts = Dictionary(library.items.compactMap { item in
            item.audio.flatMap { name in SleepLibrary.script(named: name).map { (name, $0) } }
        }, uniquingKeysWith: { first, _ in first })
        self.engines = engines
        self.cacheDirectory = cacheDirectory
        self.liveDirectory = liveDirectory
        self.mediaDirectory = mediaDirectory
        self.files = files
    }

    /// The item's source: the owner's attachment first, else the bundled script, else none (also
    /// when the owner removed the item's audio).
    nonisolated func source(for item: SleepItem, attachment: SleepAttachment?) -> Source? {
        if let attachment {
            switch attachment.source {
            case .removed:
                return nil
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
        case let .script(_, seconds):
            guard let key = try? await key(source) else { return (.failed, nil, "No speech engine is installed.") }
            if let file = cached(key) { return (.ready, file, nil) }
            // One of a known length plays while it is spoken.
            let live: State = seconds == nil ? .preparing : .speaking
            if making[key] != nil { return (live, nil, nil) }
            // One spoken as it plays is tried again by the next play, a while after it failed.
            if let failure = failures[key], live == .preparing || Date().timeIntervalSince(failedAt[key] ?? .distantPast) < Self.retryAfterFailure {
                return (.failed, nil, failure)
            }
            return (live, nil, nil)
        }
    }

    // MARK: - Spoken while it plays

    /// The file a `speaking` source's mix grows in, and whether it is being made now; nil for a
    /// source that is not spoken while it plays.
    func live(_ source: Source) async -> (url: URL, growing: Bool, writer: LiveSleepAudio.Writer?)? {
        guard case .script(_, seconds: .some) = source, let key = try? await key(source) else { return nil }
        return (liveURL(key), making[key] != nil, writers[key])
    }

    nonisolated func liveURL(_ key: String) -> URL { liveDirectory.appendingPathComponent("\(key).wav") }

    /// The live files being written, by render key.
    private var writers: [String: LiveSleepAudio.Writer] = [:]

    /// A part of a live render: where it begins in the item, its render (which may be cut
    /// short, see `RenderCuts`), and the mix it makes.
    final class LivePart: Sendable {
        /// Where it begins, in samples and in seconds.
        let sample: Int, start: Double
        let cuts: RenderCuts
        let task: Task<AudioBuffer, any Error>
        init(sample: Int, start: Double, cuts: RenderCuts, task: Task<AudioBuffer, any Error>) {
            (self.sample, self.start, self.cuts, self.task) = (sample, start, cuts, task)
        }
    }

    /// The parts of each live render under way, by render key, in order of where they begin; and
    /// the cuts asked of them and not answered yet (the render waits for those before it ends).
    private var liveParts: [String: [LivePart]] = [:]
    private var cutting: [String: Int] = [:]
    /// Renders waiting for the cuts asked of them to be answered, by render key.
    private var awaitingCuts: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// One cut asked of a render is answered (its new part, if any, is among the parts by now).
    private func cutAnswered(_ key: String) {
        cutting[key, default: 1] -= 1
        guard cutting[key] == 0 else { return }
        cutting[key] = nil
        awaitingCuts.removeValue(forKey: key)?.forEach { $0.resume() }
    }

    /// A far seek is spoken first only when the voice is more than this many seconds of the
    /// item short of it (it makes many seconds a second, so a nearer one comes soon anyway).
    static let seekLead = 20.0

    /// A player asks for a `speaking` item from `seconds` on. When the voice is far from there,
    /// the render that would reach it is cut before the phrase foreseen there, and a render of
    /// its own speaks from that phrase on at once (the rest of the item still exact in length):
    /// the person hears what they asked for within a second or two. Otherwise nothing changes.
    func reach(_ source: Source, seconds: Double) async {
        guard case let .script(script, .some(whole)) = source, let key = try? await key(source),
              let writer = writers[key], let engine = try? await engines.engine(for: nil) else { return }
        // The parts' places are in samples, known once the first stretch is written.
        while writer.sampleRate == nil, writers[key] === writer {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard let sampleRate = writer.sampleRate, let parts = liveParts[key],
              let index = parts.lastIndex(where: { $0.start <= seconds }) else { return }
        let part = parts[index]
        let made = Double(writer.available(from: part.sample)) / Double(sampleRate)
        guard seconds - made > Self.seekLead else { return }
        cutting[key, default: 0] += 1
        defer { cutAnswered(key) }
        guard let cut = await part.cuts.cut(near: seconds - part.start) else { return }
        // Nothing is awaited from here until the new part is among the parts. The render may
        // have ended meanwhile (another part failed): nothing is started for it then.
        guard writers[key] === writer, let now = liveParts[key] else { return }
        let start = part.sample + AudioBuffer.sampleCount(cut.seconds, sampleRate)
        // The new part runs to where the next one begins (the cut part's end before the cut).
        let end = now.first { $0.sample > start }?.sample ?? AudioBuffer.sampleCount(whole, sampleRate)
        writer.split(at: start)
        let piece = SleepNarration.Part(phrase: cut.phrase, end: cut.end, offset: Double(start) / Double(sampleRate), whole: whole)
        let newPart = livePart(SleepNarration(engine: engine), script: script, part: piece, seconds: Double(end - start) / Double(sampleRate),
                               at: start, writer: writer)
        liveParts[key] = (now + [newPart]).sorted { $0.sample < $1.sample }
    }

    /// Starts the render of a part of a live item (the first when `part` is nil), lasting
    /// `seconds` from sample `at`, writing its mix to the live file as it comes, and to `sink`
    /// too when given.
    private func livePart(_ narration: SleepNarration, script: String, part: SleepNarration.Part?, seconds: Double, at start: Int = 0,
                          writer: LiveSleepAudio.Writer, sink: AudioEncoder.Sink? = nil,
                          progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) -> LivePart {
        let cuts = RenderCuts()
        let task = Task {
            try await narration.render(script, seconds: seconds, part: part, cuts: cuts, progress: progress, output: { chunk in
                try writer.write(chunk.audio, part: start)
                _ = try sink?.write(chunk.audio)
            }).audio
        }
        return LivePart(sample: start, start: part?.offset ?? 0, cuts: cuts, task: task)
    }

    /// Seconds of a `speaking` source made so far from its start on (0 before it starts); nil for any other.
    func made(_ source: Source) async -> Double? {
        guard case .script(_, seconds: .some) = source, let key = try? await key(source) else { return nil }
        return writers[key]?.madeSeconds ?? 0
    }

    /// A render that failed less than this long ago is not started again.
    static let retryAfterFailure: TimeInterval = 60

    /// Starts rendering a script source in the background unless it is made or under way: a
    /// first play, an owner's new script, the audio route asked for one not made, or a stale live
    /// file from a server that stopped mid-render (made again). One that failed is started again
    /// only `retryAfterFailure` after.
    func start(_ source: Source) async {
        guard case let .script(script, seconds) = source, let key = try? await key(source), cached(key) == nil else { return }
        if failures[key] != nil, let at = failedAt[key], Date().timeIntervalSince(at) < Self.retryAfterFailure { return }
        _ = begin(key, script: script, seconds: seconds, progress: { _, _ in }, live: true)
    }

    /// How long a finished item's live file is kept for the players still reading it.
    static let liveLifetime: Duration = .seconds(3600)

    /// Removes live files not written to for `liveLifetime` (at start, and as each render starts;
    /// one being written changes all the time).
    func sweepLive() {
        DayOldFiles.remove(in: liveDirectory, olderThan: Double(Self.liveLifetime.components.seconds))
    }

    /// The source's file, rendered now if it must be (concurrent callers share the work);
    /// `progress` hears (phrases spoken, phrases in all) of a render this call starts.
    /// - Parameter live: also writes the live file players hear while it is made (the server's
    ///   renders; not the command line's, which shares the data directory with a running server).
    func file(for source: Source, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }, live: Bool = true) async throws -> File {
        let (state, file, _) = await state(of: source)
        if state == .ready, let file { return file }
        guard case let .script(script, seconds) = source else {
            throw SleepAudioProblem.missing("The uploaded file is missing from the data directory; upload it again.")
        }
        let key = try await key(source)
        return try await begin(key, script: script, seconds: seconds, progress: progress, live: live).value
    }

    /// When each render key last failed.
    private var failedAt: [String: Date] = [:]

    /// The render of `key`, started now unless it is under way (callers share it). It is among
    /// `making` from this moment, and leaves when it ends; a failure is kept with its reason.
    private func begin(_ key: String, script: String, seconds: Double?, progress: @escaping @Sendable (Int, Int) -> Void,
                       live: Bool) -> Task<File, any Error> {
        if let running = making[key] { return running }
        failures[key] = nil
        // A live file left by an earlier render (one that failed, or a server that stopped) goes
        // before anyone can read it as this one's.
        if live, seconds != nil { try? FileManager.default.removeItem(at: liveURL(key)) }
        let task = Task {
            do {
                return try await self.render(script, seconds: seconds, key: key, progress: progress, live: live)
            } catch {
                await self.failed(key, error)
                throw error
            }
        }
        making[key] = task
        Task {
            _ = try? await task.value
            await self.ended(key, task)
        }
        return task
    }

    private func failed(_ key: String, _ error: any Error) {
        failures[key] = "\(error)"
        failedAt[key] = Date()
        try? FileManager.default.removeItem(at: liveURL(key))
    }

    private func ended(_ key: String, _ task: Task<File, any Error>) {
        if making[key] == task { making[key] = nil }
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


    /// At start: renders the featured item unless it is cached (the rest are spoken when first
    /// played, or by `reverie winddown render --all`), after clearing old live files.
    func makeFeatured() async {
        sweepLive()
        guard let item = library.featured, let source = source(for: item, attachment: nil) else { return }
        _ = try? await file(for: source)
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

    private func render(_ script: String, seconds: Double?, key: String, progress: @escaping @Sendable (Int, Int) -> Void,
                        live writesLive: Bool) async throws -> File {
        let engine = try await engines.engine(for: nil)
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        // The audio first (encoded while the rest is spoken), then the metadata that makes the
        // entry count: an entry is whole or absent. One of a known length also grows as a WAV
        // that players hear while it is made.
        let sink = encoder.sink(.m4a, to: cacheDirectory.appendingPathComponent("\(key).m4a"))
        if writesLive { sweepLive() }
        let live = try (writesLive ? seconds : nil).map { seconds in
            try FileManager.default.createDirectory(at: liveDirectory, withIntermediateDirectories: true)
            return LiveSleepAudio.Writer(url: liveURL(key), seconds: seconds)
        }
        writers[key] = live
        defer { (writers[key], liveParts[key]) = (nil, nil) }
        let narration = SleepNarration(engine: engine)
        let duration: Double
        do {
            if let live, let seconds {
                // Heard as it is made: in parts when a far seek has a later part spoken first, each
                // written where it begins; the kept file is encoded from the parts in order.
                liveParts[key] = [livePart(narration, script: script, part: nil, seconds: seconds, writer: live, sink: sink, progress: progress)]
                var mixes: [AudioBuffer] = []
                while true {
                    if let part = liveParts[key]?.dropFirst(mixes.count).first {
                        do {
                            let mix = try await part.task.value
                            if !mixes.isEmpty { _ = try sink.write(mix) }
                            mixes.append(mix)
                        } catch {
                            liveParts[key]?.forEach { $0.task.cancel() }
                            throw error
                        }
                    } else if cutting[key, default: 0] > 0 {
                        // A part may be on its way: a cut asked of a part is not answered yet.
                        await withCheckedContinuation { awaitingCuts[key, default: []].append($0) }
                    } else {
                        break
                    }
                }
                duration = Double(mixes.reduce(0) { $0 + $1.samples.count }) / Double(mixes.first?.sampleRate ?? 22050)
                try await sink.finish(else: AudioBuffer(sampleRate: mixes.first?.sampleRate ?? 22050, samples: mixes.flatMap(\.samples)))
            } else {
                let audio = try await narration.render(script, seconds: seconds, progress: progress, output: { chunk in
                    try sink.write(chunk.audio)
                }).audio
                duration = audio.duration
                try await sink.finish(else: audio)
            }
            live?.close()
        } catch {
            sink.cancel()
            live?.close()
            throw error
        }
        let metadata = try JSONEncoder().encode(Metadata(durationMs: Int((duration * 1000).rounded())))
        try metadata.write(to: cacheDirectory.appendingPathComponent("\(key).json"), options: .atomic)
        guard let file = cached(key) else { throw SleepAudioProblem.missing("The render was not stored.") }
        return file
    }
}

enum SleepAudioProblem: Error, Equatable {
    case missing(String)
}
