import Foundation

/// `POST /api/speech/renders`: a script to speak.
public struct SpeechRenderRequest: Codable, Sendable, Equatable {
    /// Script text with optional pause markers: `(0.3s)`, `(2s)`, `(1.5m)`.
    public var text: String
    /// A voice id from `GET /api/speech/voices`; the preferred engine's default when absent.
    public var voice: String?
    /// 0.8…1.2; 1 when absent.
    public var rate: Double?
    /// `m4a` (default), `opus` or `mp3`.
    public var format: String?

    public init(text: String, voice: String? = nil, rate: Double? = nil, format: String? = nil) {
        self.text = text
        self.voice = voice
        self.rate = rate
        self.format = format
    }
}

/// A render job and, when done, where its files are.
public struct SpeechRenderInfo: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case rendering, done, failed
    }

    /// A problem in the script that did not stop the render (for example an unreadable marker).
    public struct Warning: Codable, Sendable, Equatable {
        public var line: Int
        public var column: Int
        public var message: String
        public init(line: Int, column: Int, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }
    }

    public var id: UUID
    public var status: Status
    /// 0…1; 1 when done.
    public var progress: Double
    public var engine: String
    public var voice: String?
    public var rate: Double
    public var format: String
    public var characters: Int
    /// Length of the audio once done.
    public var durationMs: Int?
    public var warnings: [Warning]
    /// What went wrong, when failed.
    public var error: String?
    public var createdAt: Date
    /// `…/audio`, `…/captions.vtt`, `…/timeline` (present when done).
    public var audioURL: String?
    public var captionsURL: String?
    public var timelineURL: String?
    /// `…/first`: the opening up to the end of the first phrase, as WAV, present as soon as the
    /// first phrase is spoken (while the rest renders) and after.
    public var firstPhraseURL: String?

    public init(id: UUID, status: Status, progress: Double, engine: String, voice: String?, rate: Double, format: String,
                characters: Int, durationMs: Int?, warnings: [Warning], error: String?, createdAt: Date,
                audioURL: String?, captionsURL: String?, timelineURL: String?, firstPhraseURL: String? = nil) {
        self.firstPhraseURL = firstPhraseURL
        self.id = id
        self.status = status
        self.progress = progress
        self.engine = engine
        self.voice = voice
        self.rate = rate
        self.format = format
        self.characters = characters
        self.durationMs = durationMs
        self.warnings = warnings
        self.error = error
        self.createdAt = createdAt
        self.audioURL = audioURL
        self.captionsURL = captionsURL
        self.timelineURL = timelineURL
    }
}

/// A voice the server can speak with.
public struct VoiceInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var language: String
    public var engine: String
    public init(id: String, name: String, language: String, engine: String) {
        self.id = id
        self.name = name
        self.language = language
        self.engine = engine
    }
}

/// `POST /api/speech/check`: a script to read without speaking it (an editor's live check).
public struct ScriptCheckRequest: Codable, Sendable, Equatable {
    public var text: String
    /// The speed it will be spoken at, 0.8 to 1.2 (1 when absent).
    public var rate: Double?

    public init(text: String, rate: Double? = nil) {
        self.text = text
        self.rate = rate
    }
}

/// What the script reader makes of a script: how many phrases and pauses, about how long it will
/// last, and what it noticed, with line and column.
public struct ScriptCheck: Codable, Sendable, Equatable {
    public var phrases: Int
    public var pauses: Int
    public var pauseSeconds: Double
    public var estimatedSeconds: Double
    /// Whether the author wrote markers; without any, pauses are added after lines and sentences.
    public var hasMarkers: Bool
    public var warnings: [SpeechRenderInfo.Warning]

    public init(phrases: Int, pauses: Int, pauseSeconds: Double, estimatedSeconds: Double, hasMarkers: Bool, warnings: [SpeechRenderInfo.Warning]) {
        self.phrases = phrases
        self.pauses = pauses
        self.pauseSeconds = pauseSeconds
        self.estimatedSeconds = estimatedSeconds
        self.hasMarkers = hasMarkers
        self.warnings = warnings
    }
}
