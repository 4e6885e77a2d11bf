import AudioRender
import Foundation

/// A script spoken for sleep: the speech fitted to an exact length (its pauses stretched or
/// shortened alike), over a soft synthesized bed that dips under the voice. The voice keeps its
/// −16 LUFS, the bed plays 20 LU under it, and peaks stay under −1 dBFS.
///
/// The bed is mixed in as the speech arrives, a stretch at a time, so a render to a file is
/// encoded while the rest is still spoken.
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
    public static let version = "sleep-narration-4"

    public init(engine: any SpeechEngine, bed: SleepBed = .night, rate: Double = 0.9, bedLoudness: Double = -36, duck: Double = 9) {
        self.renderer = ScriptRenderer(engine: engine)
        self.bed = bed
        self.rate = rate
        self.bedLoudness = bedLoudness
        self.duck = duck
    }

    /// The bed under a voice `count` samples long, mixed a stretch at a time: the bed made as it
    /// is needed, ducked under the voice, peaks limited.
    struct Mix {
        var bed: SleepBed.Stream
        let bedGain: Float
        var ducker: Mixing.Ducker
        var limiter: AudioBuffer.Limiter

        /// The mix of an item `count` samples long, from sample `offset` on (a part of it; the
        /// bed carries on from there).
        init(_ narration: SleepNarration, count: Int, offset: Int = 0, sampleRate: Int) {
            bed = SleepBed.Stream(narration.bed, count: count, sampleRate: sampleRate)
            bed.skip(offset)
            bedGain = amplitude(decibels: narration.bedLoudness - narration.bed.loudness(sampleRate: sampleRate))
            ducker = Mixing.Ducker(sampleRate: sampleRate, duck: narration.duck)
            limiter = AudioBuffer.Limiter(sampleRate: sampleRate, ceiling: ScriptRenderer.ceiling)
        }

        /// Takes the next stretch of voice; returns the mix as far as it is settled.
        mutating func push(_ voice: [Float]) -> [Float] { limiter.push(mixed(ducker.push(voice))) }

        /// The rest of the mix, for a voice `length` samples long in all.
        mutating func finish(length: Int) -> [Float] { limiter.push(mixed(ducker.finish(length: length))) + limiter.finish() }

        mutating func mixed(_ ducked: (voice: [Float], gains: [Float])) -> [Float] {
            var output = ducked.voice
            let bedSamples = bed.next(output.count)
            for index in bedSamples.indices { output[index] += bedSamples[index] * bedGain * ducked.gains[index] }
            return output
        }
    }

    /// A later part of a fitted item, spoken by a render of its own (a person seeking far into
    /// an item still being made): from phrase `phrase` of the script to before phrase `end` (nil:
    /// to the script's end), beginning `offset` seconds into an item `whole` seconds long. The
    /// bed carries on there as it would in one render.
    public struct Part: Sendable, Equatable {
        public var phrase: Int, end: Int?, offset: Double, whole: Double
        public init(phrase: Int, end: Int? = nil, offset: Double, whole: Double) {
            (self.phrase, self.end, self.offset, self.whole) = (phrase, end, offset, whole)
        }
    }

    /// Renders `script`, to last exactly `seconds` when given (else as long as it takes).
    /// - Parameters:
    ///   - part: renders only that part of a fitted item, lasting `seconds`.
    ///   - cuts: lets another render take over the rest of this one while it is made (see `RenderCuts`).
    ///   - output: hears the finished mix in order, a stretch at a time, while the rest
    ///     is spoken (when `seconds` is given; otherwise all at once at the end).
    public func render(_ script: String, seconds: Double?, part: Part? = nil, cuts: RenderCuts? = nil, voice: String? = nil,
                       progress: @Sendable (Int, Int) -> Void = { _, _ in },
                       output: (@Sendable (RenderedChunk) async throws -> Void)? = nil) async throws -> RenderedSpeech {
        let mixing = MixState(self, seconds: part?.whole ?? seconds, offset: part?.offset ?? 0, output: output)
        // Only a render of a known length can be mixed as it comes (the bed fades out at the end).
        let take: (@Sendable (RenderedChunk) async throws -> Void)? = seconds == nil ? nil : { @Sendable chunk in try await mixing.take(chunk) }
        var speech = try await renderer.render(script, voice: voice, rate: rate, fitting: seconds, from: part?.phrase ?? 0, to: part?.end, cuts: cuts,
                                               progress: progress, output: take)
        speech.audio = try await mixing.finish(speech.audio, phrases: speech.timeline.phrases.count)
        return speech
    }

    /// The mix of one render, fed by the renderer's stretches one after another.
    final class MixState: @unchecked Sendable {
        let narration: SleepNarration
        /// The whole item's length (the bed fades out at its end), and where this render begins in it.
        let seconds: Double?, offset: Double
        let output: (@Sendable (RenderedChunk) async throws -> Void)?
        var mix: Mix?
        var mixed: [Float] = []
        /// Where each stretch of voice ended, with the phrases done by then.
        var marks: [(end: Int, phrasesDone: Int)] = []
        var received = 0, phrasesDone = 0

        init(_ narration: SleepNarration, seconds: Double?, offset: Double, output: (@Sendable (RenderedChunk) async throws -> Void)?) {
            (self.narration, self.seconds, self.offset, self.output) = (narration, seconds, offset, output)
        }

        /// A stretch of the fitted voice (only when the length is known from the start).
        func take(_ chunk: RenderedChunk) async throws {
            guard let seconds else { preconditionFailure("a render of no set length is mixed whole, at the end") }
            let rate = chunk.audio.sampleRate
            if mix == nil {
                mix = Mix(narration, count: AudioBuffer.sampleCount(seconds, rate), offset: AudioBuffer.sampleCount(offset, rate), sampleRate: rate)
            }
            received += chunk.audio.samples.count
            marks.append((received, chunk.phrasesDone))
            try await handOn(mix!.push(chunk.audio.samples), sampleRate: rate)
        }

        /// The whole mix, once the renderer has spoken `voice` (all of the voice, for a render
        /// whose length was not known).
        func finish(_ voice: AudioBuffer, phrases: Int) async throws -> AudioBuffer {
            if mix == nil {
                mix = Mix(narration, count: voice.samples.count, sampleRate: voice.sampleRate)
                received = voice.samples.count
                marks.append((received, phrases))
                try await handOn(mix!.push(voice.samples), sampleRate: voice.sampleRate)
            }
            try await handOn(mix!.finish(length: received), sampleRate: voice.sampleRate)
            return AudioBuffer(sampleRate: voice.sampleRate, samples: mixed)
        }

        func handOn(_ samples: [Float], sampleRate: Int) async throws {
            guard !samples.isEmpty else { return }
            mixed += samples
            while let mark = marks.first, mark.end <= mixed.count {
                phrasesDone = mark.phrasesDone
                marks.removeFirst()
            }
            try await output?(RenderedChunk(audio: AudioBuffer(sampleRate: sampleRate, samples: samples), phrasesDone: phrasesDone))
        }
    }
}
