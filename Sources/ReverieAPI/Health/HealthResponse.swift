import Foundation

/// `GET /api/health`: what this server runs on and whether each part is ready.
public struct HealthResponse: Codable, Sendable, Equatable {
    /// How ready one part is, as last measured by doing its work.
    public enum State: String, Codable, Sendable, Equatable {
        /// It did its work when last tried.
        case ready
        /// It is being made ready (a worker starting, an index being built, narration spoken).
        case warming
        /// It is not installed on this machine.
        case missing
        /// It is installed but failed when last tried; `detail` says how.
        case failed
    }

    /// A part's state, with what went wrong when it did.
    public struct Part: Codable, Sendable, Equatable {
        public var state: State
        public var detail: String?
        public init(state: State, detail: String? = nil) {
            self.state = state
            self.detail = detail
        }
    }

    /// The database the server talks to.
    public struct Database: Codable, Sendable, Equatable {
        /// `sqlite` or `postgresql`.
        public var kind: String
        /// Milliseconds the health query took.
        public var latencyMs: Double?
        public init(kind: String, latencyMs: Double? = nil) {
            self.kind = kind
            self.latencyMs = latencyMs
        }
    }

    /// One speech engine and how ready it is.
    public struct Engine: Codable, Sendable, Equatable {
        public var name: String
        public var state: State
        public var detail: String?
        public init(name: String, state: State, detail: String? = nil) {
            self.name = name
            self.state = state
            self.detail = detail
        }
    }

    /// Speech engines found on this machine.
    public struct Speech: Codable, Sendable, Equatable {
        /// Names of the engines installed (for example `piper`, `espeak-ng`), preferred first; empty when none.
        public var engines: [String]
        /// Each installed engine's state, measured by speaking a word.
        public var states: [Engine]
        /// Every voice of every engine, preferred engine first.
        public var voices: [VoiceInfo]
        public init(engines: [String], states: [Engine] = [], voices: [VoiceInfo] = []) {
            self.engines = engines
            self.states = states
            self.voices = voices
        }
    }

    /// `ok` when every part is ready, `warming` while some are being made ready, `degraded` when
    /// one failed or is missing (the server still answers what it can).
    public var status: String
    /// `ReverieVersion.current` of the running server.
    public var version: String
    public var database: Database
    public var speech: Speech
    /// The rhymes index (the Write area's highlights and suggestions).
    public var rhymes: Part
    /// The meditation narration, spoken once per server.
    public var narration: Part

    public init(status: String = "ok", version: String, database: Database, speech: Speech,
                rhymes: Part = .init(state: .ready), narration: Part = .init(state: .ready)) {
        self.status = status
        self.version = version
        self.database = database
        self.speech = speech
        self.rhymes = rhymes
        self.narration = narration
    }
}
