import AudioRender
import Foundation
import SpokenScript

/// A script spoken and assembled: audio with exact pauses, and where every phrase and word is.
public struct RenderedSpeech: Sendable, Equatable {
    public var audio: AudioBuffer
    public var timeline: RenderTimeline
    /// Where the render's time went.
    public var profile: RenderProfile = RenderProfile()
}

/// Where a render's time went, in seconds. Speaking and shaping overlap (phrases are shaped and
/// handed on while the next ones are spoken), so the parts need not add up to the whole.
public struct RenderProfile: Sendable, Equatable, Codable {
    /// From the start until the last phrase was spoken.
    public var speaking = 0.0
    /// Levelling, trimming, fading and placing the phrases.
    public var shaping = 0.0
    /// Handing finished audio on (to the encoder, for a render to a file).
    public var handingOn = 0.0
    /// The whole render.
    public var total = 0.0
    /// After the audio: the encoder finishing and the files stored (set by `RenderService`).
    public var finishing = 0.0

    public init() {}
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A finished stretch of a render's audio, handed on in order while the rest is still spoken.
public struct RenderedChunk: Sendable {
    public var audio: AudioBuffer
    /// The phrases whose audio has now all been handed on (the first chunk holds the first phrase).
    public var phrasesDone: Int
}

/// Lets a fitted render in progress be cut short so another speaks the rest of its script at
/// once: a person seeking far into a Wind Down item still being made hears the part they asked
/// for within a second or two, not once the voice gets there. The render ends before the phrase
/// foreseen at the asked second, fitted to end exactly there; the other render speaks from that
/// phrase on, fitted to what is left (`render(…, from:)`).
public final class RenderCuts: @unchecked Sendable {
    /// Where a render was cut: the phrase (of the whole script) the rest begins with, the second
    /// (from this render's start) it begins at, and the phrase the rest ends before (nil: the
    /// script's end; another render speaks from there, after an earlier cut).
    public struct Cut: Sendable, Equatable {
        public var phrase: Int, seconds: Double, end: Int?
    }

    /// A cut asked for near `seconds`, answered once, by `answer` or when the render ends.
    struct Request: Sendable {
        let id: Int, seconds: Double
    }

    private let lock = NSLock()
    /// Every request not answered yet, handed to the render or not.
    private var unanswered: [Int: CheckedContinuation<Cut?, Never>] = [:]
    /// Requests the render has not taken yet, and the render waiting for one.
    private var queued: [Request] = []
    private var watcher: CheckedContinuation<Request?, Never>?
    private var ended = false, next = 0

    public init() {}

    /// Asks the render to end near `seconds` from its start; the cut made, or nil when the render
    /// has passed there, cannot fit either side, or has ended.
    public func cut(near seconds: Double) async -> Cut? {
        await withCheckedContinuation { continuation in
            // Decided in one locked step: refused (ended), handed to the waiting render, or queued.
            let (refused, handing, request) = lock.withLock { () -> (Bool, CheckedContinuation<Request?, Never>?, Request?) in
                guard !ended else { return (true, nil, nil) }
                let request = Request(id: next, seconds: seconds)
                next += 1
                unanswered[request.id] = continuation
                if let watcher {
                    self.watcher = nil
                    return (false, watcher, request)
                }
                queued.append(request)
                return (false, nil, nil)
            }
            if refused { continuation.resume(returning: nil) }
            handing?.resume(returning: request)
        }
    }

    /// Answers a request (once: a request already answered, or answered by the end, is not again).
    func answer(_ request: Request, _ cut: Cut?) {
        lock.withLock { unanswered.removeValue(forKey: request.id) }?.resume(returning: cut)
    }

    /// The next request, for the render; nil when it ends or its watch is cancelled.
    func next() async -> Request? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Request?, Never>) in
                let ready: Request?? = lock.withLock {
                    if !queued.isEmpty { return .some(queued.removeFirst()) }
                    if ended || Task.isCancelled { return .some(nil) }
                    watcher = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            lock.withLock { () -> CheckedContinuation<Request?, Never>? in
                defer { watcher = nil }
                return watcher
            }?.resume(returning: nil)
        }
    }

    /// The render ended: every request not answered yet (taken by it or not) gets no, and none
    /// is taken after.
    func end() {
        let (waiting, watching) = lock.withLock { () -> ([CheckedContinuation<Cut?, Never>], CheckedContinuation<Request?, Never>?) in
            ended = true
            defer { (unanswered, queued, watcher) = ([:], [], nil) }
            return (Array(unanswered.values), watcher)
        }
        waiting.forEach { $0.resume(returning: nil) }
        watching?.resume(returning: nil)
    }
}

/// Turns a script into finished speech.
///
/// The phrases are spoken side by side, as many at once as the engine has workers, and put back
/// in order as they arrive. Each phrase is brought to `targetLoudness` (−16 LUFS integrated,
/// peaks held under −1 dBFS) on its own, its leading and trailing silence trimmed (so the
/// author's pauses are exact), its edges faded over `edgeFade` (no clicks), and placed between
/// digital silences of exactly the requested length. Because nothing waits for the whole script,
/// each finished stretch is handed on (to an encoder) while the next phrases are spoken — also
/// when the render must fit a length (see `Fitting`).
///
/// The result does not depend on how many workers spoke it, nor in what order they finished.
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

    /// Peaks are held under this, in dBFS.
    public static let ceiling = -1.0

    /// `phrase` brought to `target` LUFS with its peaks under `ceiling`, measured as it will be
    /// heard: between silences (400 ms, a meter's block, on each side), so the blocks that take in
    /// its edges count as they will in the render, and a phrase shorter than a block can be
    /// measured at all. Silence is left as it is.
    static func levelled(_ phrase: AudioBuffer, to target: Double) -> AudioBuffer {
        (try? Loudness.normalized(phrase, to: target, ceiling: ceiling, between: 0.4)) ?? phrase
    }

    /// Fits a render to a length while it is spoken: the pauses before each phrase are scaled as
    /// the phrase is placed, by the factor that would make the whole last `target` seconds if the
    /// speech still to come is as long per letter as the speech so far; the pauses after the last
    /// phrase take up what is left, to the sample.
    ///
    /// Scaling never assumes the rest will be short: it leaves room for it to run a quarter longer
    /// than foreseen, with its pauses at a quarter of their length, so a script that fits with
    /// every pause scaled alike (by at least a quarter) fits here too.
    struct Fitting {
        let target: Double
        /// Letters in each phrase (speech lasts about as long as its letters); none for a phrase
        /// on a beat, whose time is the beat's.
        let letters: [Int]
        /// The pauses' nominal seconds before each phrase, and after the last (beats aside).
        let pausesBefore: [Double]
        let pausesAfter: Double
        /// The beat each phrase starts (`(@4s)` after it: the phrase and its silence last that
        /// long, never scaled), or 0.
        let beats: [Double]
        /// All the pauses' nominal seconds, and all the beats'.
        let pauses: Double, beatSeconds: Double
        var spokenSeconds = 0.0, spokenLetters = 0
        /// Letters, nominal pause seconds and beat seconds not yet placed (from the next phrase
        /// on, with the pauses after the last).
        var lettersAhead: Int, pausesAhead: Double, beatsAhead: Double
        /// What the last phrase's beat leaves after it, placed with the next phrase's pauses.
        var pendingBeat = 0.0
        /// Phrases whose pauses before them are placed (`scale` asked).
        var consumed = 0

        init(target: Double, segments: [ScriptSegment]) {
            var letters: [Int] = [], before: [Double] = [], beats: [Double] = [], running = 0.0
            for segment in segments {
                switch segment {
                case let .pause(pause) where pause.beat:
                    if !beats.isEmpty { beats[beats.count - 1] = pause.seconds } else { running += pause.seconds }
                case let .pause(pause): running += pause.seconds
                case let .phrase(phrase):
                    letters.append(phrase.text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.count)
                    before.append(running)
                    beats.append(0)
                    running = 0
                }
            }
            letters = zip(letters, beats).map { $1 > 0 ? 0 : $0 }
            (self.target, self.letters, pausesBefore, pausesAfter, self.beats) = (target, letters, before, running, beats)
            pauses = before.reduce(0, +) + running
            beatSeconds = beats.reduce(0, +)
            (lettersAhead, pausesAhead, beatsAhead) = (letters.reduce(0, +), pauses, beatSeconds)
        }

        /// The factor on the pauses before phrase `index` (phrases are placed in order), which
        /// lasts `seconds`, placed after `placed` seconds of audio.
        mutating func scale(before index: Int, lasting seconds: Double, placed: Double) -> Double {
            let beat = beats[index]
            consumed = index + 1
            if beat > 0 {
                beatsAhead -= beat
            } else {
                spokenSeconds += seconds
                spokenLetters += letters[index]
            }
            lettersAhead -= letters[index]
            let pauses = pausesBefore[index]
            pausesAhead -= pauses
            let room = target - placed - pendingBeat - max(seconds, beat)
            pendingBeat = max(0, beat - seconds)
            guard pauses > 0 else { return 1 }
            let perLetter = spokenLetters > 0 ? spokenSeconds / Double(spokenLetters) : 0
            let rest = perLetter * Double(lettersAhead)
            let foreseen = (room - rest - beatsAhead) / (pauses + pausesAhead)
            let safe = (room - 1.25 * rest - beatsAhead - 0.25 * pausesAhead) / pauses
            return max(0.25, min(foreseen, safe))
        }

        /// How long phrase `index` is likely to last, from the voice's pace in the phrases spoken so
        /// far (a usual voice's before any, as when the first was on a beat), erring long (as
        /// `scale`'s safe bound does).
        func estimate(_ index: Int) -> Double {
            1.25 * (spokenLetters > 0 ? spokenSeconds / Double(spokenLetters) : Self.usualPace) * Double(letters[index])
        }

        /// After `scale(before: index, lasting: estimated, …)` was asked with an estimate (the pauses
        /// placed before the phrase was spoken), the phrase's real length, in the pace and the beat.
        mutating func settle(_ index: Int, estimated: Double, lasting seconds: Double) {
            if beats[index] == 0 { spokenSeconds += seconds - estimated }
            pendingBeat = max(0, beats[index] - seconds)
        }

        /// A voice's usual seconds per letter, for placing a seam before any phrase is spoken.
        static let usualPace = 0.07

        /// How long phrase `index` is foreseen to last at `pace` (a beat's phrase, the beat).
        func foreseen(_ index: Int, pace: Double) -> Double { beats[index] > 0 ? beats[index] : pace * Double(letters[index]) }

        /// Where this fit could end near `seconds` so another render speaks the rest from there:
        /// the first phrase not yet placed whose voice would still sound at `seconds` as the rest
        /// is foreseen now (the pace so far, the pauses scaled alike), and the phrases before it
        /// still fitting, with their pauses, into `seconds`; the rest, from that phrase on with
        /// the pauses after it, into what is left. Nil when no such seam exists.
        func seam(near seconds: Double, placed: Double) -> Int? {
            let count = letters.count
            guard consumed < count, seconds > placed, seconds < target else { return nil }
            let pace = spokenLetters > 0 ? spokenSeconds / Double(spokenLetters) : Self.usualPace
            let speech = (consumed..<count).reduce(0) { $0 + foreseen($1, pace: pace) }
            let factor = pausesAhead > 0 ? max(0.25, (target - placed - pendingBeat - speech) / pausesAhead) : 1
            var time = placed + pendingBeat
            var seam: Int?
            for index in consumed..<count {
                time += factor * pausesBefore[index]
                time += foreseen(index, pace: pace)
                if time > seconds { seam = index; break }
            }
            guard let seam, seam > 0 else { return nil }
            // Each side fits if its speech runs a quarter long with its pauses at half (more room
            // than `scale`'s safe bound asks, pauses at a quarter: a cut must never leave a part
            // that cannot fit, where the whole would have).
            func fits(_ phrases: Range<Int>, pausesAfter: Double, room: Double) -> Bool {
                let speech = phrases.reduce(0) { $0 + (beats[$1] > 0 ? beats[$1] : 1.25 * pace * Double(letters[$1])) }
                let pauses = phrases.dropFirst(phrases.lowerBound == seam ? 1 : 0).reduce(0) { $0 + pausesBefore[$1] } + pausesAfter
                return speech + 0.5 * pauses <= room
            }
            guard fits(consumed..<seam, pausesAfter: pausesBefore[seam], room: seconds - placed - pendingBeat),
                  fits(seam..<count, pausesAfter: pausesAfter, room: target - seconds) else { return nil }
            return seam
        }

        /// This fit ended before phrase `phrase`, lasting `target` in all: the pauses between it
        /// and the phrase before become the last pauses; what was spoken and placed is kept.
        func cut(before phrase: Int, target: Double, segments: [ScriptSegment]) -> Fitting {
            var fit = Fitting(target: target, segments: segments)
            (fit.spokenSeconds, fit.spokenLetters, fit.pendingBeat, fit.consumed) = (spokenSeconds, spokenLetters, pendingBeat, consumed)
            fit.lettersAhead = fit.letters[consumed...].reduce(0, +)
            fit.pausesAhead = fit.pausesBefore[consumed...].reduce(0, +) + fit.pausesAfter
            fit.beatsAhead = fit.beats[consumed...].reduce(0, +)
            return fit
        }

        /// The factor on the pauses after the last phrase, with `placed` seconds of audio
        /// placed; nil when there are none (the end is padded with silence instead).
        /// - Throws: `SpeechError.cannotFit` when the speech with pauses at a quarter is too long.
        func last(placed: Double) throws -> Double? {
            let fixed = spokenSeconds + beatSeconds
            guard fixed <= target else { throw SpeechError.cannotFit(speech: fixed, target: target) }
            guard fixed + 0.25 * pauses <= target + 1e-9 else {
                throw SpeechError.cannotFit(speech: fixed + pauses * 0.25, target: target)
            }
            guard placed + pendingBeat <= target + 1e-9 else { throw SpeechError.cannotFit(speech: placed + pendingBeat, target: target) }
            return pausesAfter > 0 ? (target - placed - pendingBeat) / pausesAfter : nil
        }
    }

    /// A phrase levelled, trimmed and faded, with where its voice is.
    struct Shaped {
        var audio: AudioBuffer
        /// The voice within the levelled phrase, and the part of it kept (the voice and a margin).
        var voice: Range<Int>
        var range: Range<Int>
        var words: [WordTiming]
    }

    func shape(_ spoken: SynthesizedSpeech, sampleRate: Int) -> Shaped {
        let source = Self.levelled(spoken.audio.sampleRate == sampleRate ? spoken.audio : spoken.audio.resampled(to: sampleRate),
                                   to: targetLoudness)
        // Half of each fade runs over the quiet just outside the cut, half over the voice; the
        // timeline marks the voice itself (the quiet margins belong to the pauses).
        let margin = AudioBuffer.sampleCount(edgeFade / 2, sampleRate)
        let voice = source.audibleRange(threshold: Self.silenceThreshold) ?? 0..<0
        let range = max(0, voice.lowerBound - margin)..<min(source.samples.count, voice.upperBound + margin)
        return Shaped(audio: AudioBuffer(sampleRate: sampleRate, samples: Array(source.samples[range])).fadingEdges(in: edgeFade, out: edgeFade),
                      voice: voice, range: range, words: spoken.words)
    }

    /// Lays phrases and pauses end to end, in the script's order, keeping the timeline.
    struct Placer {
        var segments: [ScriptSegment]
        let sampleRate: Int
        /// The factor on the pauses placed next.
        var pauseScale: Double
        var next = 0
        var audio: AudioBuffer
        var phrases: [RenderTimeline.Phrase] = []
        var pauses: [RenderTimeline.Pause] = []

        init(segments: [ScriptSegment], sampleRate: Int, pauseScale: Double) {
            (self.segments, self.sampleRate, self.pauseScale) = (segments, sampleRate, pauseScale)
            audio = AudioBuffer(sampleRate: sampleRate)
        }

        func milliseconds(_ samples: Int) -> Int { Int((Double(samples) * 1000 / Double(sampleRate)).rounded()) }

        /// Quiet samples placed after the last phrase's voice (its fade-out margin).
        var trailingMargin = 0
        /// Where the last phrase's voice began (a beat counts from there).
        var lastVoiceStart: Int?

        /// The pauses up to the next phrase, whose voice begins `leadingMargin` samples into its
        /// audio. A pause is heard from one voice to the next, so the quiet margins on either side
        /// (where the edges fade) are taken out of the silence placed: voice to voice, a pause
        /// lasts what the script says.
        mutating func placePauses(leadingMargin: Int = 0) {
            var lengths: [(seconds: Double, samples: Int)] = []
            var beat: Double?
            while next < segments.count, case let .pause(pause) = segments[next] {
                next += 1
                if pause.beat, lastVoiceStart != nil {
                    beat = pause.seconds
                    continue
                }
                let seconds = pause.seconds * pauseScale
                lengths.append((seconds, AudioBuffer.sampleCount(seconds, sampleRate)))
            }
            // A beat comes first, heard from the last voice's end to the moment the beat falls:
            // that voice's start and the beat's length (less nothing, when the voice ran over it).
            if let beat, let voiceStart = lastVoiceStart {
                let voiceEnd = audio.samples.count - trailingMargin
                let samples = max(0, voiceStart + AudioBuffer.sampleCount(beat, sampleRate) - voiceEnd)
                lengths.insert((Double(samples) / Double(sampleRate), samples), at: 0)
            }
            guard !lengths.isEmpty else { return }
            lengths[0].samples -= trailingMargin
            lengths[lengths.count - 1].samples -= leadingMargin
            for (index, length) in lengths.enumerated() {
                let start = audio.samples.count
                let samples = max(0, length.samples)
                audio.samples.append(contentsOf: repeatElement(0, count: samples))
                let heardFrom = index == 0 ? start - trailingMargin : start
                let heardTo = audio.samples.count + (index == lengths.count - 1 ? leadingMargin : 0)
                pauses.append(.init(startMs: milliseconds(heardFrom), endMs: milliseconds(heardTo), seconds: length.seconds))
            }
            trailingMargin = 0
        }

        /// The pauses before the next phrase, then the phrase.
        mutating func place(_ shaped: Shaped) {
            placePauses(leadingMargin: shaped.voice.lowerBound - shaped.range.lowerBound)
            guard next < segments.count, case let .phrase(phrase) = segments[next] else { return }
            next += 1
            let start = audio.samples.count
            audio.append(shaped.audio)
            trailingMargin = shaped.range.upperBound - shaped.voice.upperBound
            let voiceStart = start + (shaped.voice.lowerBound - shaped.range.lowerBound)
            let voiceEnd = voiceStart + shaped.voice.count
            lastVoiceStart = voiceStart
            let offset = Double(shaped.voice.lowerBound) / Double(sampleRate)
            let length = Double(shaped.voice.count) / Double(sampleRate)
            let startSeconds = Double(voiceStart) / Double(sampleRate)
            let timed = shaped.words.map { word -> RenderTimeline.Word in
                let from = min(max(word.start - offset, 0), length), to = min(max(word.end - offset, from), length)
                return .init(text: word.text, startMs: Int(((startSeconds + from) * 1000).rounded()), endMs: Int(((startSeconds + to) * 1000).rounded()))
            }
            phrases.append(.init(text: phrase.text, line: phrase.line, startMs: milliseconds(voiceStart), endMs: milliseconds(voiceEnd), words: timed))
        }
    }

    /// Renders a script.
    /// - Parameters:
    ///   - fitting: a length in seconds the audio must have: the pauses are scaled alike (each by
    ///     at least a quarter of what the script says, see `Fitting`) so the speech and pauses
    ///     add up to it.
    ///   - first: renders the script from that phrase on (the pauses before it left out).
    ///   - cuts: lets another render take over the rest of this one, fitted, while it is made.
    ///   - progress: called after each phrase is spoken with (phrases done, phrases in all).
    ///   - output: hears the finished audio in order, a stretch at a time, while the rest is
    ///     spoken (the first stretch ends with the first phrase); all of it is also returned.
    /// - Throws: `SpeechError.cannotFit` when the speech with pauses at a quarter is too long;
    ///   `CancellationError` when the task is cancelled (checked before each phrase is spoken).
    public func render(_ script: String, voice: String? = nil, rate: Double = 1, fitting target: Double? = nil,
                       from first: Int = 0, to end: Int? = nil, cuts: RenderCuts? = nil,
                       progress: @Sendable (Int, Int) -> Void = { _, _ in },
                       output: (@Sendable (RenderedChunk) async throws -> Void)? = nil) async throws -> RenderedSpeech {
        // However the render ends, a cut asked of it is answered.
        defer { cuts?.end() }
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        var parsed = try parser.parse(script)
        // The segments from phrase `first` on (the pauses before it left out), to before phrase
        // `end` (the pauses after the phrase before it kept).
        if let end {
            guard end > first, let stop = parsed.segmentIndex(ofPhrase: end) else { throw SpeechError.cannotFit(speech: 0, target: target ?? 0) }
            parsed.segments.removeSubrange(stop...)
        }
        if first > 0 {
            guard let start = parsed.segmentIndex(ofPhrase: first) else { throw SpeechError.cannotFit(speech: 0, target: target ?? 0) }
            parsed.segments.removeFirst(start)
        }
        // Requests of this render take turns with other renders' in the engine's pool.
        let group = SpeechRequests.group.isEmpty ? UUID().uuidString : SpeechRequests.group
        return try await SpeechRequests.$group.withValue(group) {
            try await assemble(parsed, voice: voice, rate: rate, fitting: target, first: first, end: end, cuts: target == nil ? nil : cuts,
                               progress: progress, output: output)
        }
    }

    /// What a render's task group hears: a phrase spoken, or someone asking to cut it.
    private enum Event: Sendable {
        case spoken(Int, SynthesizedSpeech)
        case cut(RenderCuts.Request?)
    }

    private func assemble(_ parsed: ParsedScript, voice: String?, rate: Double, fitting target: Double?, first: Int, end: Int?, cuts: RenderCuts?,
                          progress: @Sendable (Int, Int) -> Void,
                          output: (@Sendable (RenderedChunk) async throws -> Void)?) async throws -> RenderedSpeech {
        let started = ContinuousClock.now
        var profile = RenderProfile()
        func seconds(since start: ContinuousClock.Instant) -> Double { (ContinuousClock.now - start).seconds }
        let texts = parsed.phrases.map(\.text)
        var total = texts.count
        progress(0, total)
        let engine = engine
        var fitting = target.map { Fitting(target: $0, segments: parsed.segments) }

        var placer: Placer?
        var handedOn = 0          // samples of the placer's audio handed to `output`
        // The second phrase's length as guessed when the pauses before it were placed ahead of it.
        var guessedSecond: Double?
        var waiting: [Int: SynthesizedSpeech] = [:]
        var sampleRate: Int?

        /// Hands on what has been placed since the last time.
        func handOn(_ placer: Placer) async throws {
            guard let output, placer.audio.samples.count > handedOn else { return }
            let start = ContinuousClock.now
            let stretch = AudioBuffer(sampleRate: placer.sampleRate, samples: Array(placer.audio.samples[handedOn...]))
            handedOn = placer.audio.samples.count
            try await output(RenderedChunk(audio: stretch, phrasesDone: placer.phrases.count))
            profile.handingOn += seconds(since: start)
        }

        try await withThrowingTaskGroup(of: Event.self) { group in
            // Twice as many phrases as the engine speaks at once are asked, so a worker that
            // finishes finds the next phrase waiting; the pool's turns keep other renders fair.
            let ahead = 2 * max(1, engine.concurrency)
            var asked = 0, spoken = 0, placed = 0
            // A cancelled render asks for no more phrases, and one asked but not begun is not
            // spoken (the engine may be busy with another render's meanwhile).
            func ask() throws {
                try Task.checkCancellation()
                let index = asked, text = texts[index]
                group.addTask {
                    try Task.checkCancellation()
                    // The first phrase is what the person waits for: spoken before others' phrases waiting.
                    return .spoken(index, try await SpeechRequests.$opening.withValue(index == 0) {
                        try await engine.synthesize(text, voice: voice, rate: rate)
                    })
                }
                asked += 1
            }
            if let cuts { group.addTask { .cut(await cuts.next()) } }
            // A cut asked before the first phrase is placed (the pace and the rate not known yet);
            // answered no if the render ends first, or fails.
            var heldCut: RenderCuts.Request?
            defer { if let heldCut { cuts?.answer(heldCut, nil) } }
            // The phrase (of the whole script) this render ends before, after a cut; nil: the script's end.
            var bound = end
            /// Ends this render before the phrase foreseen at the asked second, if it fits, and
            /// answers where; the phrases after it, asked already, are let go unheard.
            func cut(_ request: RenderCuts.Request) {
                // The second phrase still to come after the pauses placed for it counts at its guess.
                let coming = placed < (fitting?.consumed ?? 0) ? guessedSecond ?? 0 : 0
                guard let fit = fitting, let placing = placer,
                      let seam = fit.seam(near: request.seconds, placed: placing.audio.duration + coming) else {
                    return cuts!.answer(request, nil)
                }
                // The seam on a whole sample, as the parts are written at whole samples.
                let at = Double(AudioBuffer.sampleCount(request.seconds, placing.sampleRate)) / Double(placing.sampleRate)
                let end = parsed.segmentIndex(ofPhrase: seam)!
                let kept = Array(parsed.segments[..<end])
                fitting = fit.cut(before: seam, target: at, segments: kept)
                placer!.segments = kept
                total = seam
                // Phrases past the seam already spoken, waiting for one before them, go unheard
                // too: placed, they would run past the cut's end (and its fit's last phrase).
                waiting = waiting.filter { $0.key < seam }
                cuts!.answer(request, .init(phrase: first + seam, seconds: at, end: bound))
                bound = first + seam
            }
            while asked < min(ahead, total) { try ask() }
            while placed < total, let event = try await group.next() {
                let (index, speech): (Int, SynthesizedSpeech)
                switch event {
                case let .cut(request):
                    guard let request else { continue }
                    if let cuts { group.addTask { .cut(await cuts.next()) } }
                    if placer != nil {
                        cut(request)
                    } else {
                        if let heldCut { cuts!.answer(heldCut, nil) }
                        heldCut = request
                    }
                    continue
                case let .spoken(spokenIndex, spokenSpeech):
                    guard spokenIndex < total else { continue }
                    (index, speech) = (spokenIndex, spokenSpeech)
                }
                spoken += 1
                progress(min(spoken, total), total)
                if asked < total { try ask() }
                waiting[index] = speech
                let shapingStart = ContinuousClock.now
                while placed < total, let speech = waiting.removeValue(forKey: placed) {
                    let phraseRate = sampleRate ?? speech.audio.sampleRate
                    sampleRate = phraseRate
                    let shaped = shape(speech, sampleRate: phraseRate)
                    if placer == nil { placer = Placer(segments: parsed.segments, sampleRate: phraseRate, pauseScale: 1) }
                    if let guessed = guessedSecond, placed == 1 {
                        fitting?.settle(placed, estimated: guessed, lasting: shaped.audio.duration)
                    } else if fitting != nil {
                        placer!.pauseScale = fitting!.scale(before: placed, lasting: shaped.audio.duration, placed: placer!.audio.duration)
                    }
                    placer!.place(shaped)
                    placed += 1
                }
                // Heard as it is made: the pauses after the first phrase are placed before the
                // second is spoken, its length guessed, so the first stretch handed on holds them
                // too (a player waiting for so many seconds of sound starts on the first phrase).
                // Later pauses are placed with their phrase, the fit's guesses made good by then.
                if output != nil, placed == 1, total > 1, guessedSecond == nil, let guess = fitting?.estimate(1) {
                    placer!.pauseScale = fitting!.scale(before: 1, lasting: guess, placed: placer!.audio.duration)
                    placer!.placePauses(leadingMargin: AudioBuffer.sampleCount(edgeFade / 2, placer!.sampleRate))
                    guessedSecond = guess
                }
                if let request = heldCut, placer != nil {
                    heldCut = nil
                    cut(request)
                }
                profile.shaping += seconds(since: shapingStart)
                if let placer { try await handOn(placer) }
            }
            // The phrases a cut let go, and the watch for cuts, end with the render.
            group.cancelAll()
        }
        profile.speaking = seconds(since: started)

        let finalRate = sampleRate ?? 22050
        var finished = placer ?? Placer(segments: parsed.segments, sampleRate: finalRate, pauseScale: 1)
        if let fitting {
            // The pauses after the last phrase take up the rest; rounding each pause to whole
            // samples may leave a few samples over or under, evened out in that last silence.
            if let scale = try fitting.last(placed: finished.audio.duration) { finished.pauseScale = scale }
            finished.placePauses()
            let exact = AudioBuffer.sampleCount(fitting.target, finalRate)
            let count = finished.audio.samples.count
            if count < exact { finished.audio.append(.silence(seconds: Double(exact - count) / Double(finalRate), sampleRate: finalRate)) }
            if count > exact, exact >= handedOn { finished.audio.samples.removeLast(count - exact) }
        } else {
            finished.placePauses()
        }
        try await handOn(finished)
        profile.total = seconds(since: started)
        let timeline = RenderTimeline(
            engine: engine.name, voice: voice, rate: rate,
            durationMs: finished.milliseconds(finished.audio.samples.count),
            phrases: finished.phrases, pauses: finished.pauses,
            warnings: parsed.warnings.map { .init(line: $0.line, column: $0.column, message: $0.message) })
        return RenderedSpeech(audio: finished.audio, timeline: timeline, profile: profile)
    }
}
