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

    /// Renders a script.
    /// - Parameter progress: called after each phrase with (phrases done, phrases in all).
    public func render(_ script: String, voice: String? = nil, rate: Double = 1,
                       progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> RenderedSpeech {
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        let parsed = try parser.parse(script)
        let total = parsed.phrases.count
        progress(0, total)

        var audio: AudioBuffer?
        var pending: [Double] = []      // pauses before the first phrase tells us the sample rate
        var phrases: [RenderTimeline.Phrase] = []
        var pauses: [RenderTimeline.Pause] = []

        func milliseconds(_ samples: Int, _ rate: Int) -> Int { Int((Double(samples) * 1000 / Double(rate)).rounded()) }

        for segment in parsed.segments {
            switch segment {
            case let .pause(pause):
                guard var current = audio else { pending.append(pause.seconds); continue }
                let start = current.samples.count
                current.append(.silence(seconds: pause.seconds, sampleRate: current.sampleRate))
                pauses.append(.init(startMs: milliseconds(start, current.sampleRate), endMs: milliseconds(current.samples.count, current.sampleRate), seconds: pause.seconds))
                audio = current
            case let .phrase(phrase):
                let spoken = try await engine.synthesize(phrase.text, voice: voice, rate: rate)
                let rate = spoken.audio.sampleRate
                var current = audio ?? AudioBuffer(sampleRate: rate)
                if audio == nil {
                    for seconds in pending {
                        let start = current.samples.count
                        current.append(.silence(seconds: seconds, sampleRate: rate))
                        pauses.append(.init(startMs: milliseconds(start, rate), endMs: milliseconds(current.samples.count, rate), seconds: seconds))
                    }
                    pending = []
                }
                let source = spoken.audio.sampleRate == current.sampleRate ? spoken.audio : spoken.audio.resampled(to: current.sampleRate)
                let range = source.audibleRange() ?? 0..<0
                let trimmed = AudioBuffer(sampleRate: source.sampleRate, samples: Array(source.samples[range]))
                    .fadingEdges(in: edgeFade, out: edgeFade)
                let start = current.samples.count
                let offset = Double(range.lowerBound) / Double(source.sampleRate)
                let length = trimmed.duration
                current.append(trimmed)
                let startSeconds = Double(start) / Double(current.sampleRate)
                let words = spoken.words.map { word -> RenderTimeline.Word in
                    let from = min(max(word.start - offset, 0), length), to = min(max(word.end - offset, from), length)
                    return .init(text: word.text, startMs: Int(((startSeconds + from) * 1000).rounded()), endMs: Int(((startSeconds + to) * 1000).rounded()))
                }
                phrases.append(.init(text: phrase.text, line: phrase.line, startMs: milliseconds(start, current.sampleRate),
                                     endMs: milliseconds(current.samples.count, current.sampleRate), words: words))
                audio = current
                progress(phrases.count, total)
            }
        }

        var finished = audio ?? AudioBuffer(sampleRate: 22050)
        if let loud = try? Loudness.normalized(finished, to: targetLoudness) { finished = loud }
        let timeline = RenderTimeline(
            engine: engine.name, voice: voice, rate: rate,
            durationMs: milliseconds(finished.samples.count, finished.sampleRate),
            phrases: phrases, pauses: pauses,
            warnings: parsed.warnings.map { .init(line: $0.line, column: $0.column, message: $0.message) })
        return RenderedSpeech(audio: finished, timeline: timeline)
    }
}
