import Foundation

/// `GET /api/meditation/plan`: everything the web app needs to run one session offline: the
/// phases, the cue schedule with audio URLs and lengths, and the breathing keyframes.
public struct MeditationPlan: Codable, Sendable, Equatable {
    public struct Phase: Codable, Sendable, Equatable {
        public var type: String
        /// What the lock screen shows: Introduction, Breathing, Closing.
        public var title: String
        public var startSeconds: Int
        public var durationSeconds: Int
        public init(type: String, title: String, startSeconds: Int, durationSeconds: Int) {
            self.type = type
            self.title = title
            self.startSeconds = startSeconds
            self.durationSeconds = durationSeconds
        }
    }

    public struct Audio: Codable, Sendable, Equatable {
        public var audioFile: String
        public var url: String
        /// nil when the file cannot be made on this server (no speech engine).
        public var durationMs: Int?
        public init(audioFile: String, url: String, durationMs: Int?) {
            self.audioFile = audioFile
            self.url = url
            self.durationMs = durationMs
        }
    }

    public struct Cue: Codable, Sendable, Equatable {
        public var atSeconds: Double
        public var audio: Audio
        public init(atSeconds: Double, audio: Audio) {
            self.atSeconds = atSeconds
            self.audio = audio
        }
    }

    /// One breathing step with its keyframes: the `Breathing` engine's `BreathingPattern.Step`
    /// and the word shown and announced during it (made in one place on the server,
    /// `MeditationPlan+BreathingPattern.swift`).
    public struct Step: Codable, Sendable, Equatable {
        /// `inhale`, `hold`, `exhale` or `rest`.
        public var kind: String
        /// `Inhale`, `Hold`, `Exhale` or `Rest`.
        public var word: String
        public var seconds: Double
        public var scaleFrom: Double
        public var scaleTo: Double
        public var opacityFrom: Double
        public var opacityTo: Double
        public init(kind: String, word: String, seconds: Double, scaleFrom: Double, scaleTo: Double, opacityFrom: Double, opacityTo: Double) {
            self.kind = kind
            self.word = word
            self.seconds = seconds
            self.scaleFrom = scaleFrom
            self.scaleTo = scaleTo
            self.opacityFrom = opacityFrom
            self.opacityTo = opacityTo
        }
    }

    public var sessionType: String
    public var name: String
    public var durationMinutes: Int
    public var totalSeconds: Int
    /// The seed the interjections were drawn with; the same seed gives the same plan.
    public var seed: Int
    public var phases: [Phase]
    public var cues: [Cue]
    /// Breathing steps with their keyframes; the breathing phase starts at the first step.
    public var pattern: [Step]
    public var bell: Audio
    public var silence: Audio
    /// The whole session as one file: the cues at their times, silence between, and the bell at
    /// `totalSeconds` (the file ends when it has rung). Its `durationMs` is nil when the
    /// narration cannot be made on this server.
    public var sound: Audio
    /// A session ended before this many seconds stays in the history but counts toward no streak
    /// or total; the completion screen says so.
    public var minimumCountedSeconds: Int

    public init(sessionType: String, name: String, durationMinutes: Int, totalSeconds: Int, seed: Int, phases: [Phase],
                cues: [Cue], pattern: [Step], bell: Audio, silence: Audio, sound: Audio, minimumCountedSeconds: Int) {
        self.sessionType = sessionType
        self.name = name
        self.durationMinutes = durationMinutes
        self.totalSeconds = totalSeconds
        self.seed = seed
        self.phases = phases
        self.cues = cues
        self.pattern = pattern
        self.bell = bell
        self.silence = silence
        self.sound = sound
        self.minimumCountedSeconds = minimumCountedSeconds
    }
}
