import AudioRender
import Breathing
import Foundation
import Speech

/// The audio files the meditation manifest names, made on this machine: narration spoken through
/// the speech engine (cached with every other render), the bell synthesized by `AudioRender`, and
/// a second of silence for the keep-alive loop; and a whole session as one file, its cues at
/// their times and the bell at the end, which is what a session plays (so the closing and the bell
/// reach the ear with the phone locked and no script running).
actor MeditationAudio {
    struct File: Sendable, Equatable {
        var url: URL
        var contentType: String
        var durationMs: Int
    }

    enum Problem: Error, Equatable {
        /// Not a file the manifest names.
        case unknown(String)
    }

    let manifest: MeditationManifest
    let narration: [String: String]
    private let jobs: SpeechJobs
    private let synthesized: SynthesizedAudio
    private let sessionDirectory: URL
    private let files: AudioFiles
    private var made: [String: File] = [:]
    private var making: [String: Task<File, any Error>] = [:]
    /// The seed of the next session of each session and length ("basic-breathing/5"), whose file
    /// is made ahead: a plan asked without a seed takes it, so its sound is there at Start.
    private var ahead: [String: Int] = [:]

    static let bellFile = "bell-v1.m4a", silenceFile = "silence-1s-v1.m4a"

    init(manifest: MeditationManifest, narration: [String: String], jobs: SpeechJobs, cacheDirectory: URL, files: AudioFiles = AudioFiles()) {
        self.manifest = manifest
        self.narration = narration
        self.jobs = jobs
        self.synthesized = SynthesizedAudio(directory: cacheDirectory)
        self.sessionDirectory = cacheDirectory.appendingPathComponent("sessions", isDirectory: true)
        self.files = files
    }

    /// A whole session as one file: each cue at its moment, silence between, and the bell at
    /// `totalSeconds`, the file ending when the bell has rung. Made once per schedule (the same
    /// plan and seed give the same file) and kept for a day; concurrent requests share the work.
    func session(cues: [ScheduledCue], totalSeconds: Int) async throws -> File {
        let (key, parts, length) = try await sessionParts(cues: cues, totalSeconds: totalSeconds)
        if let file = made[key], FileManager.default.fileExists(atPath: file.url.path) { return file }
        if let running = making[key] { return try await running.value }
        let url = sessionDirectory.appendingPathComponent("\(key).m4a")
        let files = self.files, directory = sessionDirectory
        let task = Task {
            if !FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                DayOldFiles.remove(in: directory)
                try await files.place(parts.map { ($0.file.url, $0.at) }, length: length, into: url)
            }
            return File(url: url, contentType: AudioEncoder.Format.m4a.contentType, durationMs: Int((length * 1000).rounded()))
        }
        making[key] = task
        defer { making[key] = nil }
        let file = try await task.value
        made[key] = file
        return file
    }

    /// The seed made ahead for `length` ("session/minutes"), taken (the next plan makes another).
    func takeAhead(_ length: String) -> Int? { ahead.removeValue(forKey: length) }

    /// Makes the session of `seed` ahead for the next plan of `length`: its file now, in the
    /// background (a plan taking it meanwhile, and its sound's request, join the making).
    func makeAhead(_ length: String, seed: Int, cues: [ScheduledCue], totalSeconds: Int) {
        ahead[length] = seed
        Task { _ = try? await self.session(cues: cues, totalSeconds: totalSeconds) }
    }

    /// What the Meditate page shows first (its one session, 5 minutes): made ahead while the
    /// server warms up, so the first Start after a server starts is heard at once, as later ones
    /// are (each plan makes the next one's ahead).
    static let firstMinutes = 5

    /// Makes ahead the session the page shows first, unless one is made ahead already.
    func makeFirstAhead(seeds: ClosedRange<Int>) async {
        guard let session = manifest.sessions.first?.id, let variant = try? manifest.variant(session: session, minutes: Self.firstMinutes) else { return }
        let length = "\(session)/\(Self.firstMinutes)"
        guard ahead[length] == nil else { return }
        let seed = Int.random(in: seeds)
        let cues = Self.cues(variant, seed: seed, lengths: await lengths())
        ahead[length] = seed
        _ = try? await self.session(cues: cues, totalSeconds: variant.totalSeconds)
    }

    /// The seed made ahead for `length`, left in place.
    func seedAhead(_ length: String) -> Int? { ahead[length] }

    /// Whether the session of `seed` for that session and length is made (its file on disk).
    func isMade(session: String, minutes: Int, seed: Int) async -> Bool {
        guard let variant = try? manifest.variant(session: session, minutes: minutes) else { return false }
        let cues = Self.cues(variant, seed: seed, lengths: await lengths())
        guard let key = try? await sessionParts(cues: cues, totalSeconds: variant.totalSeconds).key else { return false }
        return made[key].map { FileManager.default.fileExists(atPath: $0.url.path) } ?? false
    }

    /// The cue schedule of `seed` (the same seed, the same schedule).
    static func cues(_ variant: MeditationManifest.Variant, seed: Int, lengths: [String: Double]) -> [ScheduledCue] {
        var random = SeededGenerator(seed: UInt64(seed))
        return CueScheduler.schedule(variant, length: { lengths[$0] ?? 0 }, using: &random)
    }

    /// The parts of a session (each cue's file at its moment, the bell at the end), its length,
    /// and the key of its file.
    private func sessionParts(cues: [ScheduledCue], totalSeconds: Int) async throws
        -> (key: String, parts: [(name: String, file: File, at: Double)], length: Double) {
        var parts: [(name: String, file: File, at: Double)] = []
        for cue in cues { parts.append((cue.audioFile, try await file(cue.audioFile), cue.atSeconds)) }
        let bell = try await file(manifest.shared.bell)
        parts.append((manifest.shared.bell, bell, Double(totalSeconds)))
        let length = Double(totalSeconds) + Double(bell.durationMs) / 1000
        let key = "session-" + ContentKey.of(parts.map { "\($0.file.url.lastPathComponent)@\($0.at)" } + [String(length), "v1"])
        return (key, parts, length)
    }

    /// The file for a manifest name (`sessions/basic-breathing/intro-welcome`, `shared/bell`),
    /// made on first use; concurrent requests share the work.
    func file(_ name: String) async throws -> File {
        if let file = made[name] { return file }
        if let running = making[name] { return try await running.value }
        let task = Task { try await self.make(name) }
        making[name] = task
        defer { making[name] = nil }
        let file = try await task.value
        made[name] = file
        return file
    }

    /// Makes every file the manifest names (at start, so the first session does not wait for
    /// narration to be spoken), and records how that went.
    func makeAll(readiness: Readiness) async {
        readiness.setNarration(.init(state: .warming))
        for name in manifest.audioFiles {
            do {
                _ = try await file(name)
            } catch {
                readiness.setNarration(.init(state: .failed, detail: (error as? SpeechError)?.description ?? "\(name): \(error)"))
                return
            }
        }
        readiness.setNarration(.init(state: .ready))
    }

    /// The speech-cache keys of the narration: renders that stay when a person is removed.
    func narrationKeys() async -> Set<String> {
        var keys: Set<String> = []
        for script in narration.values {
            if let key = try? await jobs.service.key(for: Self.request(script)) { keys.insert(key) }
        }
        return keys
    }

    static func request(_ script: String) -> RenderService.Request {
        .init(script: script, voice: nil, rate: 0.95, format: .m4a)
    }

    /// How long each file plays, in seconds, for those that can be made now (for the schedule).
    func lengths() async -> [String: Double] {
        var lengths: [String: Double] = [:]
        for name in manifest.audioFiles {
            if let file = try? await file(name) { lengths[name] = Double(file.durationMs) / 1000 }
        }
        return lengths
    }

    private func make(_ name: String) async throws -> File {
        if let script = narration[name] {
            let entry = try await jobs.service.render(Self.request(script))
            return File(url: entry.audio, contentType: entry.format.contentType, durationMs: entry.durationMs)
        }
        let file: SynthesizedAudio.File
        switch name {
        case manifest.shared.bell:
            file = try await synthesized.file(Self.bellFile) { Bell.meditation.render(sampleRate: 44100) }
        case manifest.shared.silence:
            file = try await synthesized.file(Self.silenceFile) { .silence(seconds: 1, sampleRate: 44100) }
        default:
            throw Problem.unknown(name)
        }
        return File(url: file.url, contentType: AudioEncoder.Format.m4a.contentType, durationMs: file.durationMs)
    }
}

