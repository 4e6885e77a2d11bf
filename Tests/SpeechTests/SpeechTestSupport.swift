import AudioRender
import Foundation
import Speech

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// One warm Piper worker shared by the tests that speak (loading the voice takes seconds).
let sharedPiper = PiperEngine(configuration: .repository(repositoryRoot))

/// One eSpeak NG engine for the tests that speak with it (it lists its voices once).
let sharedESpeak = ESpeakEngine()

/// Two warm Piper workers of a thread each, shared by the tests of the pool.
let sharedPiperPool = PiperEngine(configuration: .repository(repositoryRoot, workers: 2, threadsPerWorker: 1))

/// A stand-in engine: a tone per phrase, its length set by the word count, with 50 ms of silence
/// around it as a real engine leaves. Same protocol as the real engines.
struct ToneEngine: SpeechEngine {
    let name = "tone"
    let version = "1"
    func voices() async throws -> [Voice] { [Voice(id: "tone", name: "Tone", language: "en", engine: name)] }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        let words = WordAligner.words(in: text)
        let rate = 22050
        let tone = 0.25 * Double(max(1, words.count))
        let silence = AudioBuffer.silence(seconds: 0.05, sampleRate: rate)
        let samples = (0..<AudioBuffer.sampleCount(tone, rate)).map { Float(0.3 * sin(2 * Double.pi * 220 * Double($0) / Double(rate))) }
        let audio = silence.appending(AudioBuffer(sampleRate: rate, samples: samples)).appending(silence)
        let timings = words.enumerated().map { index, word in WordTiming(text: word, start: 0.05 + 0.25 * Double(index), end: 0.05 + 0.25 * Double(index + 1)) }
        return SynthesizedSpeech(audio: audio, words: timings)
    }
}

/// Speaks through another engine, counting the phrases it spoke, those being spoken, and those
/// cancelled before they were spoken.
final class TallyingEngine: SpeechEngine {
    struct Tally {
        var spoken = 0, speaking = 0, cancelled = 0
    }
    let inner: any SpeechEngine
    let tally = Locked(Tally())
    init(_ inner: any SpeechEngine) { self.inner = inner }
    var name: String { inner.name }
    var version: String { inner.version }
    var concurrency: Int { inner.concurrency }
    func voices() async throws -> [Voice] { try await inner.voices() }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        tally.withLockedValue { $0.speaking += 1 }
        defer { tally.withLockedValue { $0.speaking -= 1 } }
        do {
            let speech = try await inner.synthesize(text, voice: voice, rate: rate)
            tally.withLockedValue { $0.spoken += 1 }
            return speech
        } catch is CancellationError {
            tally.withLockedValue { $0.cancelled += 1 }
            throw CancellationError()
        }
    }
}

/// Silent stretches in audio, found independently of the renderer's timeline: 5 ms windows whose
/// RMS is under −40 dBFS, in runs of at least `minimum` seconds. Returns (start, length) in seconds.
func silences(in buffer: AudioBuffer, minimum: Double = 0.2, threshold: Double = -40) -> [(start: Double, length: Double)] {
    let window = AudioBuffer.sampleCount(0.005, buffer.sampleRate)
    let level = amplitude(decibels: threshold)
    var runs: [(Double, Double)] = []
    var runStart: Int?
    var index = 0
    while index < buffer.samples.count {
        let range = index..<min(buffer.samples.count, index + window)
        let quiet = buffer.rms(range) < level
        if quiet, runStart == nil { runStart = index }
        if !quiet, let start = runStart {
            let length = Double(index - start) / Double(buffer.sampleRate)
            if length >= minimum { runs.append((Double(start) / Double(buffer.sampleRate), length)) }
            runStart = nil
        }
        index += window
    }
    return runs
}

/// A value shared between tasks behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A phrase's loudness as it is heard: its audio (with the fades around it) between 400 ms of
/// silence on each side.
func heardLoudness(_ rendered: RenderedSpeech, _ phrase: RenderTimeline.Phrase) throws -> Double {
    let audio = rendered.audio.slice(from: max(0, Double(phrase.startMs) / 1000 - 0.004), to: Double(phrase.endMs) / 1000 + 0.004)
    let quiet = AudioBuffer.silence(seconds: 0.4, sampleRate: audio.sampleRate)
    return try Loudness.integrated(quiet.appending(audio).appending(quiet))
}

/// The largest sample-to-sample jump within 2 ms of each place a phrase is spliced to digital
/// silence, by the place in milliseconds: a click shows as a jump. A pause in the timeline runs
/// voice to voice; the splices are where its run of exact zeros begins and ends (the phrases'
/// faded margins lie between). A run is a millisecond of zeros at least: a voice's quiet margin,
/// or its first sound, can hold a single zero sample (Piper speaks 16-bit samples, and differently
/// each time), and a window around that would measure the voice, not the splice.
func jumpsAtPauses(_ rendered: RenderedSpeech) -> [(boundary: Int, jump: Float)] {
    let samples = rendered.audio.samples
    let rate = rendered.audio.sampleRate
    let edge = AudioBuffer.sampleCount(0.002, rate)
    let run = AudioBuffer.sampleCount(0.001, rate)
    let silent = { (range: Range<Int>) in range.allSatisfy { samples[$0] == 0 } }
    let splices = rendered.timeline.pauses.flatMap { pause -> [Int] in
        let from = min(samples.count - 1, AudioBuffer.sampleCount(Double(pause.startMs) / 1000, rate))
        let to = min(samples.count - 1, AudioBuffer.sampleCount(Double(pause.endMs) / 1000, rate))
        guard to - from > run, let first = (from...(to - run)).first(where: { silent($0..<($0 + run)) }),
              let last = ((from + run)...to).last(where: { silent(($0 - run + 1)..<($0 + 1)) }) else {
            return [from, to]
        }
        return [first, last + 1]
    }
    return splices.map { center in
        let range = max(1, center - edge)..<min(samples.count, center + edge)
        return (Int((Double(center) * 1000 / Double(rate)).rounded()), range.map { abs(samples[$0] - samples[$0 - 1]) }.max() ?? 0)
    }
}
