import Foundation

/// The speech engines installed on this machine, in order of preference (Piper, then eSpeak NG),
/// and which one speaks a given voice.
public struct SpeechEngines: Sendable {
    /// An engine this machine lacks, and what to do about it.
    public struct Missing: Sendable, Equatable {
        public var name: String
        public var reason: String
        public init(name: String, reason: String) {
            self.name = name
            self.reason = reason
        }
    }

    public let engines: [any SpeechEngine]
    /// The engines `installed()` looked for and did not find.
    public let missing: [Missing]

    public init(_ engines: [any SpeechEngine], missing: [Missing] = []) {
        self.engines = engines
        self.missing = missing
    }

    /// Piper when its worker and voice are installed, and eSpeak NG when its library loads.
    public static func installed(piper: PiperEngine.Configuration = .locate()) async -> SpeechEngines {
        var engines: [any SpeechEngine] = []
        var missing: [Missing] = []
        if piper.isInstalled {
            engines.append(PiperEngine(configuration: piper))
        } else {
            missing.append(.init(name: "piper", reason: "Piper and its voice are not installed in .venv; run scripts/bootstrap.sh run (make run does)."))
        }
        let espeak = ESpeakEngine()
        if await espeak.isAvailable() {
            engines.append(espeak)
        } else {
            missing.append(.init(name: "espeak-ng", reason: "eSpeak NG's library or voice data does not load; install espeak-ng (scripts/bootstrap.sh does)."))
        }
        return SpeechEngines(engines, missing: missing)
    }

    public var names: [String] { engines.map(\.name) }

    /// Every voice of every engine, preferred engine first.
    public func voices() async -> [Voice] {
        var all: [Voice] = []
        for engine in engines { all += (try? await engine.voices()) ?? [] }
        return all
    }

    /// The engine that speaks `voice`, or the preferred engine when `voice` is nil.
    /// - Throws: `SpeechError.engineUnavailable` when nothing is installed, `.unknownVoice` when no
    ///   engine has the voice.
    public func engine(for voice: String?) async throws -> any SpeechEngine {
        guard let first = engines.first else {
            throw SpeechError.engineUnavailable("no speech engine is installed; run scripts/bootstrap.sh run (make run does)")
        }
        guard let voice else { return first }
        for engine in engines where (try? await engine.voices())?.contains(where: { $0.id == voice }) == true { return engine }
        throw SpeechError.unknownVoice(voice)
    }

    /// Starts every engine's workers (Piper loads its voice in each), side by side.
    public func warm() async {
        await withTaskGroup(of: Void.self) { group in
            for case let piper as PiperEngine in engines { group.addTask { await piper.warm() } }
        }
    }

    /// Stops worker processes.
    public func shutdown() async {
        for case let piper as PiperEngine in engines { await piper.shutdown() }
    }
}
