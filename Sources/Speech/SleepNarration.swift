import AudioRender
import Foundation

/// A script spoken for sleep: the speech fitted to an exact length (its pauses stretched or
/// shortened alike), over a soft synthesized bed that dips under the voice, levelled as a whole.
public struct SleepNarration: Sendable {
    public var renderer: ScriptRenderer
    public var bed: SleepBed
    /// Speaking rate: a little slower than conversation.
    public var rate: Double
    /// The bed's own loudness before ducking, in LUFS (well under the voice's −16).
    public var bedLoudness: Double
    /// How far the bed dips under the voice, in dB.
    public var duck: Double

    /// Changes whenever the output for the same script would sound different (part of cache keys).
    public static let version = "sleep-narration-2"

    public init(engine: any SpeechEngine, bed: SleepBed = .night, rate: Double = 0.9, bedLoudness: Double = -36, duck: Double = 9) {
        self.renderer = ScriptRenderer(engine: engine)
        self.bed = bed
        self.rate = rate
        self.bedLoudness = bedLoudness
        self.duck = duck
    }

    /// Renders `script`, to last exactly `seconds` when given (else as long as it takes).
    public func render(_ script: String, seconds: Double?, voice: String? = nil,
                       progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> RenderedSpeech {
        var speech = try await renderer.render(script, voice: voice, rate: rate, fitting: seconds, progress: progress)
        var bedAudio = bed.render(seconds: speech.audio.duration, sampleRate: speech.audio.sampleRate)
        if let level = try? Loudness.integrated(bedAudio) { bedAudio = bedAudio.gained(decibels: bedLoudness - level) }
        let mixed = Mixing.ducked(bedAudio, under: speech.audio, duck: duck)
        speech.audio = (try? Loudness.normalized(mixed, to: renderer.targetLoudness)) ?? mixed
        return speech
    }
}
