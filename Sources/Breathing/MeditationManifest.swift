import Foundation

/// What sessions exist and what plays when: the seed's `meditation.json` schema.
/// Times in cues and windows count from the start of their phase.
public struct MeditationManifest: Codable, Sendable, Equatable {
    public var sessions: [SessionDefinition]
    public var shared: SharedAudio

    public init(sessions: [SessionDefinition], shared: SharedAudio) {
        self.sessions = sessions
        self.shared = shared
    }

    public struct SessionDefinition: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String
        public var variants: [Variant]
    }

    public struct Variant: Codable, Sendable, Equatable {
        public var durationMinutes: Int
        public var phases: [Phase]

        public var totalSeconds: Int { phases.reduce(0) { $0 + $1.durationSeconds } }

        /// Where each phase starts, in seconds from the session's start.
        public var phaseStarts: [Int] {
            var start = 0
            return phases.map { phase in defer { start += phase.durationSeconds }; return start }
        }

        /// The phase `elapsed` seconds in (the last one once over).
        public func phaseIndex(at elapsed: Double) -> Int {
            let starts = phaseStarts
            return starts.lastIndex { Double($0) <= elapsed } ?? 0
        }
    }

    public enum PhaseType: String, Codable, Sendable {
        case intro, breathing, closing

        /// What the lock screen shows as the artist while this phase runs.
        public var title: String {
            switch self {
            case .intro: "Introduction"
            case .breathing: "Breathing"
            case .closing: "Closing"
            }
        }
    }

    public struct Phase: Codable, Sendable, Equatable {
        public var type: PhaseType
        public var durationSeconds: Int
        public var fixedCues: [FixedCue]
        public var interjectionWindows: [InterjectionWindow]?
    }

    public struct FixedCue: Codable, Sendable, Equatable {
        public var atSeconds: Int
        public var audioFile: String
    }

    public struct InterjectionWindow: Codable, Sendable, Equatable {
        public var earliestSeconds: Int
        public var latestSeconds: Int
        public var audioPool: [String]
    }

    public struct SharedAudio: Codable, Sendable, Equatable {
        public var bell: String
        public var silence: String
    }

    /// The variant of `session` lasting `minutes`.
    public func variant(session: String, minutes: Int) throws(ManifestError) -> Variant {
        guard let index = sessions.firstIndex(where: { $0.id == session }) else { throw .unknownSession(session) }
        guard let variant = sessions[index].variants.first(where: { $0.durationMinutes == minutes }) else {
            throw .missingVariant(path: "sessions[\(index)].variants", session: session, minutes: minutes,
                                  available: sessions[index].variants.map(\.durationMinutes))
        }
        return variant
    }

    /// Every audio file the manifest names, once each, in order of appearance.
    public var audioFiles: [String] {
        var seen = Set<String>()
        var files: [String] = []
        func add(_ file: String) { if seen.insert(file).inserted { files.append(file) } }
        for session in sessions {
            for variant in session.variants {
                for phase in variant.phases {
                    phase.fixedCues.forEach { add($0.audioFile) }
                    phase.interjectionWindows?.forEach { $0.audioPool.forEach(add) }
                }
            }
        }
        add(shared.bell)
        add(shared.silence)
        return files
    }

    /// The manifest Reverie ships (`basic-breathing`, 5, 10 and 20 minutes).
    public static func bundled() throws -> MeditationManifest {
        guard let url = Bundle.module.url(forResource: "meditation", withExtension: "json") else {
            throw ManifestError.unreadable("meditation.json is missing from the Breathing module's resources")
        }
        return try decode(Data(contentsOf: url))
    }

    /// Reads manifest JSON; a shape error names the field.
    public static func decode(_ data: Data) throws(ManifestError) -> MeditationManifest {
        do {
            return try JSONDecoder().decode(MeditationManifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .unreadable("\(Self.path(context.codingPath + [key])): missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .unreadable("\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw .unreadable("\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw .unreadable("\(error)")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
    }
}

/// Why a manifest cannot be used.
public enum ManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownSession(String)
    case missingVariant(path: String, session: String, minutes: Int, available: [Int])
    case unreadable(String)

    public var description: String {
        switch self {
        case let .unknownSession(id): "There is no meditation session “\(id)”."
        case let .missingVariant(path, session, minutes, available):
            "\(path): “\(session)” has no \(minutes)-minute variant (it has \(available.map(String.init).joined(separator: ", ")))."
        case let .unreadable(reason): "The meditation manifest cannot be read: \(reason)"
        }
    }
}

/// One thing wrong in a manifest, with the path of the field (`sessions[0].variants[1].phases[2].fixedCues[0].atSeconds`).
public struct ManifestProblem: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

extension MeditationManifest {
    /// Everything wrong with the manifest; empty when it can be used.
    public func problems() -> [ManifestProblem] {
        var problems: [ManifestProblem] = []
        func problem(_ path: String, _ message: String) { problems.append(ManifestProblem(path: path, message: message)) }

        if shared.bell.isEmpty { problem("shared.bell", "names no audio file") }
        if shared.silence.isEmpty { problem("shared.silence", "names no audio file") }
        if sessions.isEmpty { problem("sessions", "is empty") }
        var ids = Set<String>()
        for (s, session) in sessions.enumerated() {
            let sessionPath = "sessions[\(s)]"
            if session.id.isEmpty { problem("\(sessionPath).id", "is empty") }
            if !ids.insert(session.id).inserted { problem("\(sessionPath).id", "“\(session.id)” is used twice") }
            if session.variants.isEmpty { problem("\(sessionPath).variants", "is empty") }
            var minutes = Set<Int>()
            for (v, variant) in session.variants.enumerated() {
                let variantPath = "\(sessionPath).variants[\(v)]"
                if variant.durationMinutes <= 0 { problem("\(variantPath).durationMinutes", "must be positive") }
                if !minutes.insert(variant.durationMinutes).inserted {
                    problem("\(variantPath).durationMinutes", "another variant also lasts \(variant.durationMinutes) minutes")
                }
                if variant.totalSeconds != variant.durationMinutes * 60 {
                    problem("\(variantPath).phases", "last \(variant.totalSeconds) s in all, not \(variant.durationMinutes * 60) s")
                }
                for (p, phase) in variant.phases.enumerated() {
                    let phasePath = "\(variantPath).phases[\(p)]"
                    if phase.durationSeconds <= 0 { problem("\(phasePath).durationSeconds", "must be positive") }
                    for (c, cue) in phase.fixedCues.enumerated() {
                        if cue.atSeconds < 0 || cue.atSeconds >= phase.durationSeconds {
                            problem("\(phasePath).fixedCues[\(c)].atSeconds",
                                    "\(cue.atSeconds) s is outside its \(phase.durationSeconds)-second phase")
                        }
                        if cue.audioFile.isEmpty { problem("\(phasePath).fixedCues[\(c)].audioFile", "names no audio file") }
                    }
                    let windows = phase.interjectionWindows ?? []
                    for (w, window) in windows.enumerated() {
                        let windowPath = "\(phasePath).interjectionWindows[\(w)]"
                        if window.earliestSeconds > window.latestSeconds {
                            problem(windowPath, "earliestSeconds \(window.earliestSeconds) is after latestSeconds \(window.latestSeconds)")
                        }
                        if window.earliestSeconds < 0 || window.latestSeconds >= phase.durationSeconds {
                            problem(windowPath, "\(window.earliestSeconds)–\(window.latestSeconds) s is outside its \(phase.durationSeconds)-second phase")
                        }
                        if window.audioPool.isEmpty || window.audioPool.contains(where: \.isEmpty) {
                            problem("\(windowPath).audioPool", "needs at least one audio file, none empty")
                        }
                        for (o, other) in windows.enumerated() where o < w {
                            if window.earliestSeconds <= other.latestSeconds && other.earliestSeconds <= window.latestSeconds {
                                problem(windowPath, "overlaps interjectionWindows[\(o)]")
                            }
                        }
                    }
                }
            }
        }
        return problems
    }
}
