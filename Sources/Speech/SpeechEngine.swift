import AudioRender
import Foundation

/// Something that turns text into speech with word timings.
public protocol SpeechEngine: Sendable {
    /// Stable name: `piper`, `espeak-ng`.
    var name: String { get }
    /// Changes whenever the same text would sound different (part of every cache key).
    var version: String { get }
    /// Voices this engine can speak with.
    func voices() async throws -> [Voice]
    /// Speaks one phrase.
    /// - Parameters:
    ///   - voice: a voice id from `voices()`, or nil for the engine's default.
    ///   - rate: speaking rate, 0.8…1.2 (1 is normal), without changing pitch.
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech
    /// How many phrases it speaks at once (its workers); a renderer keeps about this many asked.
    var concurrency: Int { get }
}

extension SpeechEngine {
    public var concurrency: Int { 1 }
}

/// A voice an engine offers.
public struct Voice: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// BCP 47 language, such as `en-US`.
    public var language: String
    public var engine: String

    public init(id: String, name: String, language: String, engine: String) {
        self.id = id
        self.name = name
        self.language = language
        self.engine = engine
    }
}

/// One synthesized phrase.
public struct SynthesizedSpeech: Sendable, Equatable {
    public var audio: AudioBuffer
    /// The phrase's words with their times in `audio`, in order.
    public var words: [WordTiming]

    public init(audio: AudioBuffer, words: [WordTiming]) {
        self.audio = audio
        self.words = words
    }
}

/// A word and when it is spoken, in seconds from the start of its audio.
public struct WordTiming: Codable, Sendable, Equatable {
    public var text: String
    public var start: Double
    public var end: Double

    public init(text: String, start: Double, end: Double) {
        self.text = text
        self.start = start
        self.end = end
    }
}

/// What can go wrong speaking.
public enum SpeechError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The engine's program or files are not installed.
    case engineUnavailable(String)
    /// The worker process ended while speaking.
    case workerDied(String)
    /// The engine answered with an error.
    case synthesisFailed(String)
    case invalidRate(Double)
    /// No installed engine has this voice.
    case unknownVoice(String)
    /// The speech alone is longer than the length asked for (seconds: speech, asked).
    case cannotFit(speech: Double, target: Double)

    public var description: String {
        switch self {
        case let .engineUnavailable(reason): "The speech engine is not available: \(reason)"
        case let .workerDied(reason): "The speech worker stopped: \(reason)"
        case let .synthesisFailed(reason): "Speaking failed: \(reason)"
        case let .invalidRate(rate): "A speaking rate of \(rate) is out of range; use 0.8 to 1.2."
        case let .cannotFit(speech, target):
            "The speech alone lasts \(Int(speech.rounded())) s, too long for \(Int(target.rounded())) s; shorten the script or give it more time."
        case let .unknownVoice(voice): "No installed voice is called “\(voice)”; `reverie voices` lists them."
        }
    }
}
