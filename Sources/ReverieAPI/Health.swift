/// `GET /api/health`: what this server is and what it can do right now.
public struct HealthResponse: Codable, Sendable, Equatable {
    /// The database the server talks to.
    public struct Database: Codable, Sendable, Equatable {
        /// `sqlite` or `postgresql`.
        public var kind: String
        public init(kind: String) { self.kind = kind }
    }

    /// Speech engines found on this machine.
    public struct Speech: Codable, Sendable, Equatable {
        /// Names of the engines that can speak now (for example `piper`, `espeak-ng`); empty when none.
        public var engines: [String]
        /// Every voice of every engine, preferred engine first.
        public var voices: [VoiceInfo]
        public init(engines: [String], voices: [VoiceInfo] = []) {
            self.engines = engines
            self.voices = voices
        }
    }

    /// Always `ok` when the server answers.
    public var status: String
    /// `ReverieVersion.current` of the running server.
    public var version: String
    public var database: Database
    public var speech: Speech

    public init(status: String = "ok", version: String, database: Database, speech: Speech) {
        self.status = status
        self.version = version
        self.database = database
        self.speech = speech
    }
}
