import AudioRender
import Foundation
import SpokenScript

/// A script spoken and assembled: audio with exact pauses, and where every phrase and word is.
public struct RenderedSpeech: Sendable, Equatable {
    public var audio: AudioBuffer
    public var timeline: RenderTimeline
}

/// Turns a script into finished speech.
///
/// Each phrase is synthesized, its leading and trailing silence trimmed (so the author's pauses
/// are exact), its edges faded over `edgeFade` (no clicks), and placed between digital silences of
/// exactly the requested length. The whole is then brought to `targetLoudness` (−16 LUFS
/// integrated) with peaks held under −1 dBFS.
public struct ScriptRenderer: Sendable {
    public var engine: any SpeechEngine
    public var parser: ScriptParser
    /// Fade at each phrase edge, in seconds.
    public var edgeFade: Double
    public var targetLoudness: Double

    public init(engine: any SpeechEngine, parser: ScriptParser = ScriptParser(), edgeFade: Double = 0.008, targetLoudness: Double = -16) {
        self.engine = engine
        self.parser = parser
        self.edgeFade = edgeFade
        self.targetLoudness = targetLoudness
    }

    /// Sound quieter than this (RMS over 5 ms windows, dBFS, at the finished level) is silence:
    /// phrase edges are cut there, and it is what a listener's meter would call the pause.
    public static let silenceThreshold = -40.0

    /// The gain (dB) that brings the phrases, played back to back, to `target` LUFS.
    static func gain(toward target: Double, of phrases: [AudioBuffer]) -> Double {
        guard let rate = phrases.first?.sampleRate else { return 0 }
        var joined = AudioBuffer(sampleRate: rate)
        for phrase in phrases { joined.append(phrase) }   // BS.1770's gates leave the silences out
        guard let loudness = try? Loudness.integrated(joined), loudness.isFinite else { return 0 }
        return target - loudness
    }

    /// The factor on every pause that makes `speech` + pauses last `target` seconds (1 without a target).
    static func pauseScale(fitting target: Double?, speech: Double, pauses: Double) throws -> Double {
        guard let target else { return 1 }
        guard speech <= target else { throw SpeechError.cannotFit(speech: speech, target: target) }
        guard pauses > 0 else { return 1 }   // the end is padded with silence
        let scale = (target - speech) / pauses
        guard scale >= 0.25 else { throw SpeechError.cannotFit(speech: speech + pauses * 0.25, target: target) }
        return scale
    }

    /// Renders a script.
    /// - Parameters:
    ///   - fitting: a length in seconds the audio must have: every pause is scaled by one factor
    ///     (at least a quarter of what the script says) so the speech and pauses add up to it.
    ///   - progress: called after each phrase with (phrases done, phrases in all).
    /// - Throws: `SpeechError.cannotFit` when the speech with pauses at a quarter is too long.
    public func render(_ script: String, voice: String? = nil, rate: Double = 1, fitting target: Double? = nil,
                       progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> RenderedSpeech {
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        let parsed = try parser.parse(script)
        let total = parsed.phrases.count
        progress(0, total)

        // Pass 1: speak every phrase.
        var spoken: [SynthesizedSpeech] = []
        for phrase in parsed.phrases {
            spoken.append(try await engine.synthesize(phrase.text, voice: voice, rate: rate))
            progress(spoken.count, total)
        }
        let sampleRate = spoken.first?.audio.sampleRate ?? 22050
        let sources = spoken.map { $0.audio.sampleRate == sampleRate ? $0.audio : $0.audio.resampled(to: sampleRate) }

        // The gain that brings the speech to the target, found before trimming so that "silent"
        // means the same thing in the finished audio as where the edges are cut.
        let gain = Self.gain(toward: targetLoudness, of: sources)

        // Pass 2: trim each phrase where it falls under the silence threshold at its final level and
        // fade its edges …
        struct Trimmed { var audio: AudioBuffer; var voice: Range<Int>; var range: Range<Int> }
        let margin = AudioBuffer.sampleCount(edgeFade / 2, sampleRate)
        let trimmedPhrases = sources.map { source -> Trimmed in
            let source = source.gained(decibels: gain)
            // Half of each fade runs over the quiet just outside the cut, half over the voice;
            // the timeline marks the voice itself (the quiet margins belong to the pauses).
            let voice = source.audibleRange(threshold: Self.silenceThreshold) ?? 0..<0
            let range = max(0, voice.lowerBound - margin)..<min(source.samples.count, voice.upperBound + margin)
            return Trimmed(audio: AudioBuffer(sampleRate: sampleRate, samples: Array(source.samples[range]))
                .fadingEdges(in: edgeFade, out: edgeFade), voice: voice, range: range)
        }
        let pauseScale = try Self.pauseScale(fitting: target, speech: trimmedPhrases.reduce(0) { $0 + $1.audio.duration },
                                             pauses: parsed.segments.reduce(0) { if case let .pause(pause) = $1 { $0 + pause.seconds } else { $0 } })

        // … and lay the phrases between exact silences.
        var audio = AudioBuffer(sampleRate: sampleRate)
        var phrases: [RenderTimeline.Phrase] = []
        var pauses: [RenderTimeline.Pause] = []
        func milliseconds(_ samples: Int) -> Int { Int((Double(samples) * 1000 / Double(sampleRate)).rounded()) }
        var next = 0
        for segment in parsed.segments {
            switch segment {
            case let .pause(pause):
                let start = audio.samples.count
                audio.append(.silence(seconds: pause.seconds * pauseScale, sampleRate: sampleRate))
                pauses.append(.init(startMs: milliseconds(start), endMs: milliseconds(audio.samples.count), seconds: pause.seconds * pauseScale))
            case let .phrase(phrase):
                let words = spoken[next].words
                let (trimmed, voice, range) = (trimmedPhrases[next].audio, trimmedPhrases[next].voice, trimmedPhrases[next].range)
                next += 1
                let start = audio.samples.count
                audio.append(trimmed)
                let voiceStart = start + (voice.lowerBound - range.lowerBound)
                let voiceEnd = voiceStart + voice.count
                let offset = Double(voice.lowerBound) / Double(sampleRate)
                let length = Double(voice.count) / Double(sampleRate)
                let startSeconds = Double(voiceStart) / Double(sampleRate)
                let timed = words.map { word -> RenderTimeline.Word in
                    let from = min(max(word.start - offset, 0), length), to = min(max(word.end - offset, from), length)
                    return .init(text: word.text, startMs: Int(((startSeconds + from) * 1000).rounded()), endMs: Int(((startSeconds + to) * 1000).rounded()))
                }
                phrases.append(.init(text: phrase.text, line: phrase.line, startMs: milliseconds(voiceStart),
                                     endMs: milliseconds(voiceEnd), words: timed))
            }
        }

        if let target {   // rounding each pause to whole samples may leave a few samples over or under
            let exact = AudioBuffer.sampleCount(target, sampleRate)
            if audio.samples.count < exact { audio.append(.silence(seconds: Double(exact - audio.samples.count) / Double(sampleRate), sampleRate: sampleRate)) }
            if audio.samples.count > exact { audio = AudioBuffer(sampleRate: sampleRate, samples: Array(audio.samples.prefix(exact))) }
        }

        // The speech is already at about the target; this corrects the rest and holds the peaks.
        var finished = audio
        if let loud = try? Loudness.normalized(finished, to: targetLoudness) { finished = loud }
        let timeline = RenderTimeline(
            engine: engine.name, voice: voice, rate: rate,
            durationMs: milliseconds(finished.samples.count),
            phrases: phrases, pauses: pauses,
            warnings: parsed.warnings.map { .init(line: $0.line, column: $0.column, message: $0.message) })
        return RenderedSpeech(audio: finished, timeline: timeline)
    }
}
