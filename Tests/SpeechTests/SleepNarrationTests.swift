import AudioRender
import Foundation
import Speech
import SpokenScript
import Testing

@Suite("Fitting speech to a length, and sleep narration over a bed")
struct SleepNarrationTests {
    let script = "Settle in. (2s) Let the body rest. (4s) Breathe. (3s)\nLet sleep come. (6s)"

    @Test("the pauses are stretched alike while the speech is spoken, the last takes up the rest, and the audio lasts exactly the length asked for")
    func fitting() async throws {
        let natural = try await ScriptRenderer(engine: ToneEngine()).render(script)
        let chunks = Locked<[RenderedChunk]>([])
        let longer = try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: 40, output: { chunk in chunks.withLockedValue { $0.append(chunk) } })
        #expect(longer.audio.samples.count == AudioBuffer.sampleCount(40, longer.audio.sampleRate))
        // Handed on as the phrases are placed, in order, and the last pauses after them; how many
        // phrases each stretch holds depends on which the engine finished first (phrases are
        // spoken side by side), so a busy machine may join two.
        let handed = chunks.withLockedValue { $0 }
        #expect((2...5).contains(handed.count), "\(handed.map(\.phrasesDone))")
        #expect(handed.map(\.phrasesDone) == handed.map(\.phrasesDone).sorted() && handed.last?.phrasesDone == 4)
        #expect(handed.flatMap(\.audio.samples) == longer.audio.samples)
        // The same factor as all at once would give (2.5 s of speech, 15 s of pauses, to 40 s:
        // 2.5), within 5%, until the last pause, which makes the length exact.
        let factors = zip(longer.timeline.pauses, [2.0, 4, 3, 6]).map { $0.seconds / $1 }
        for factor in factors.dropLast() { #expect(abs(factor - 2.5) < 0.125, "\(factors)") }
        #expect(factors.last! > 2.5 * 0.9)
        // The phrases are the same speech, only moved.
        #expect(zip(natural.timeline.phrases, longer.timeline.phrases).allSatisfy { $0.endMs - $0.startMs == $1.endMs - $1.startMs })
        let shorter = try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: natural.audio.duration - 5)
        #expect(abs(shorter.audio.duration - (natural.audio.duration - 5)) < 0.001)
        for pause in shorter.timeline.pauses { #expect(pause.seconds > 0) }
    }

    @Test("heard as it is made, the first stretch holds the first phrase and the pauses after it, placed before the second phrase is spoken; the whole still lasts exactly the length asked for")
    func firstStretchHoldsItsPauses() async throws {
        let engine = HeldEngine(passing: "Settle in.")
        let chunks = Locked<[RenderedChunk]>([])
        let (handedOn, handing) = AsyncStream.makeStream(of: RenderedChunk.self)
        defer { engine.letGo() }  // (whatever happens, no phrase is left waiting)
        let render = Task {
            defer { handing.finish() }  // a render that fails ends the stretches: the test says so, not hangs
            return try await ScriptRenderer(engine: engine).render(script, fitting: 40, output: { chunk in
                chunks.withLockedValue { $0.append(chunk) }
                handing.yield(chunk)
            })
        }
        // Only the first phrase is spoken until the engine is let go: whatever is handed on by
        // then was placed without the second.
        var stretches = handedOn.makeAsyncIterator()
        _ = try #require(await stretches.next(), "nothing was handed on")
        let first = try #require(chunks.withLockedValue { $0.first })
        let phrase = try await ToneEngine().synthesize("Settle in.", voice: nil, rate: 1).audio.duration
        #expect(first.phrasesDone == 1)
        // The script's 2 s after it, stretched toward the 40 s asked (2.5 times here): at least
        // the 2 s as written, where the phrase alone is under one.
        #expect(first.audio.duration >= phrase + 2, "the first stretch: \(first.audio.duration) s")
        engine.letGo()
        let rendered = try await render.value
        #expect(rendered.audio.samples.count == AudioBuffer.sampleCount(40, rendered.audio.sampleRate))
        #expect(chunks.withLockedValue { $0.flatMap(\.audio.samples) } == rendered.audio.samples)
        let voiceToVoice = Double(rendered.timeline.phrases[1].startMs - rendered.timeline.phrases[0].endMs) / 1000
        #expect(abs(voiceToVoice - rendered.timeline.pauses[0].seconds) < 0.02, "the pause heard is the pause placed: \(voiceToVoice)")
    }

    @Test("a fitted render cut for a far seek: the part asked for is spoken by a render of its own while the voice before it still waits; cut again for a seek back, the middle ends where the rest begins; each part lasts exactly its stretch, and every phrase is heard once, in order")
    func cutForASeek() async throws {
        let lines = (1...12).map { "Line \($0) of the story is told slowly. (6s)" }
        let story = lines.joined(separator: "\n")
        let phrases = try ScriptParser().parse(story).phrases.map(\.text)
        // Every phrase but the first of each render waits until the engine is let go.
        let engine = HeldEngine(passing: phrases[0], openings: true)
        defer { engine.letGo() }
        let cuts = RenderCuts()
        let narration = SleepNarration(engine: engine)
        let (handedOn, handing) = AsyncStream.makeStream(of: RenderedChunk.self)
        let whole = Task {
            defer { handing.finish() }
            return try await narration.render(story, seconds: 120, cuts: cuts, output: { handing.yield($0) })
        }
        var stretches = handedOn.makeAsyncIterator()
        _ = try #require(await stretches.next(), "the first phrase was handed on")
        // Behind what is made: no cut.
        #expect(await cuts.cut(near: 0.5) == nil)
        let cut = try #require(await cuts.cut(near: 80), "a cut near 80 s")
        #expect(cut.seconds == 80)
        // The phrase foreseen at 80 s, as the whole would place it (the tone's pace is even).
        let unsplit = try await SleepNarration(engine: ToneEngine()).render(story, seconds: 120)
        let foreseen = try #require(unsplit.timeline.phrases.firstIndex { Double($0.endMs) / 1000 > 80 })
        #expect(abs(cut.phrase - foreseen) <= 1, "cut before phrase \(cut.phrase); the whole has phrase \(foreseen) at 80 s")
        // The rest, spoken first: its opening passes while the whole's phrases still wait.
        let (restHanded, restHanding) = AsyncStream.makeStream(of: RenderedChunk.self)
        let rest = Task {
            defer { restHanding.finish() }
            return try await narration.render(story, seconds: 40, part: .init(phrase: cut.phrase, offset: 80, whole: 120),
                                              output: { restHanding.yield($0) })
        }
        var restStretches = restHanded.makeAsyncIterator()
        let opening = try #require(await restStretches.next(), "the rest's opening was handed on while the voice before it waits")
        #expect(opening.audio.peak > 0.1, "the voice of the phrase at the seam")
        // A seek back to 40 s cuts the first part again: the middle part ends where the rest begins.
        let back = try #require(await cuts.cut(near: 40), "a second cut near 40 s")
        #expect(back.seconds == 40 && back.end == cut.phrase && back.phrase < cut.phrase)
        let middle = Task {
            try await narration.render(story, seconds: 40, part: .init(phrase: back.phrase, end: back.end, offset: 40, whole: 120))
        }
        engine.letGo()
        let (before, between, after) = (try await whole.value, try await middle.value, try await rest.value)
        for (part, seconds) in [(before, 40.0), (between, 40), (after, 40)] {
            #expect(part.audio.samples.count == AudioBuffer.sampleCount(seconds, part.audio.sampleRate))
        }
        #expect((before.timeline.phrases + between.timeline.phrases + after.timeline.phrases).map(\.text) == phrases)
        #expect(try #require(after.timeline.phrases.first).startMs < 50, "the rest begins with its phrase at the seam")
        // Once a render has ended, nothing is cut.
        #expect(await cuts.cut(near: 100) == nil)
    }

    @Test("a cut while the phrases after the seam are already spoken, waiting for one before them: those are let go, and the render ends at the cut with every phrase before it once, in order")
    func cutPastWaitingPhrases() async throws {
        let lines = (1...12).map { "Line \($0) of the story is told slowly. (6s)" }
        let story = lines.joined(separator: "\n")
        let phrases = try ScriptParser().parse(story).phrases.map(\.text)
        // The second phrase is held; every other one is spoken at once, so all the rest wait for it.
        let engine = HeldEngine(holding: phrases[1])
        defer { engine.letGo() }
        let cuts = RenderCuts()
        let whole = Task { try await SleepNarration(engine: engine).render(story, seconds: 120, cuts: cuts) }
        await engine.spoken(atLeast: phrases.count - 1)
        let cut = try #require(await cuts.cut(near: 80), "a cut near 80 s")
        #expect(cut.phrase > 2 && cut.phrase < phrases.count, "cut before phrase \(cut.phrase)")
        engine.letGo()
        let before = try await whole.value
        #expect(before.audio.samples.count == AudioBuffer.sampleCount(cut.seconds, before.audio.sampleRate))
        #expect(before.timeline.phrases.map(\.text) == Array(phrases[..<cut.phrase]))
    }

    @Test("a script ending on a phrase ends with it; one without pauses is padded with silence; a script whose rest runs longer than foreseen still fits")
    func fittingEnds() async throws {
        let ending = "Settle in. (2s) Let the body rest. (4s) Breathe."
        let fitted20 = try await ScriptRenderer(engine: ToneEngine()).render(ending, fitting: 20)
        #expect(fitted20.audio.samples.count == AudioBuffer.sampleCount(20, fitted20.audio.sampleRate))
        let last = try #require(fitted20.timeline.phrases.last)
        #expect(Double(last.endMs) / 1000 > 19.95)
        let padded = try await ScriptRenderer(engine: ToneEngine()).render("Settle in.", fitting: 5)
        #expect(padded.audio.samples.count == AudioBuffer.sampleCount(5, padded.audio.sampleRate))
        #expect(try #require(padded.timeline.phrases.last).endMs < 1000)
        // Short words first, then long ones: the first pauses are scaled by a guess that is too
        // short; the guess leaves room, so the length is still met.
        let surprise = "Go. (4s) Up. (4s) Extraordinary, unquestionably, incomprehensibly, overwhelmingly, interminably long. (1s)"
        let fitted = try await ScriptRenderer(engine: ToneEngine()).render(surprise, fitting: 6)
        #expect(fitted.audio.samples.count == AudioBuffer.sampleCount(6, fitted.audio.sampleRate))
        for pause in fitted.timeline.pauses { #expect(pause.seconds >= 0) }
    }

    @Test("a beat (@4s) starts the next phrase that long after the last one started, to the sample, and fitting stretches the other pauses only")
    func beats() async throws {
        // Tones of 0.25 s a word: "In" then the counts, one a second; "Hold" for 7, "Out" for 8.
        let cycle = "In. (@1s) two. (@1s) three. (@1s) four. (@1s) Hold. (@7s) And slowly out. (@8s)"
        let script = "Settle in and rest. (3s)\n\(cycle)\n\(cycle)\nGood. (4s)"
        let fitted = try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: 60)
        #expect(fitted.audio.samples.count == AudioBuffer.sampleCount(60, fitted.audio.sampleRate))
        let starts = fitted.timeline.phrases.map { Double($0.startMs) / 1000 }
        let texts = fitted.timeline.phrases.map(\.text)
        let beats = [1.0, 1, 1, 1, 7, 8]
        for cycle in 0..<2 {
            let first = 1 + cycle * 6
            #expect(texts[first] == "In.")
            for (offset, beat) in beats.enumerated() where first + offset + 1 < starts.count {
                let gap = starts[first + offset + 1] - starts[first + offset]
                #expect(abs(gap - beat) < 0.002, "\(texts[first + offset]) → \(texts[first + offset + 1]): \(gap) s, not \(beat)")
            }
        }
        // Two 19 s cycles and 1.5 s of speech around them: the ordinary pauses (3 s and 4 s)
        // took up the rest of the minute, stretched alike.
        let ordinary = fitted.timeline.pauses.filter { $0.seconds > 2.5 }.map(\.seconds)
        #expect(ordinary.count >= 2)
        // Natural (no fitting): every beat still lands to the millisecond.
        let natural = try await ScriptRenderer(engine: ToneEngine()).render(cycle)
        let naturalStarts = natural.timeline.phrases.map(\.startMs)
        #expect(zip(naturalStarts, naturalStarts.dropFirst()).map { $1 - $0 } == [1000, 1000, 1000, 1000, 7000])
        #expect(abs(natural.audio.duration - 19) < 0.01)
    }

    @Test("a length the speech cannot fit in says so")
    func cannotFit() async throws {
        // 2.5 s of speech: pauses at a quarter (3.75 s) still fit 8 s; 5 s and 2 s do not.
        #expect(try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: 8).audio.duration == 8)
        for target in [5.0, 2.0] {
            await #expect { try await ScriptRenderer(engine: ToneEngine()).render(self.script, fitting: target) } throws: { error in
                (error as? SpeechError)?.description.contains("too long for \(Int(target)) s") == true
            }
        }
    }

    @Test("sleep narration: the exact length, the voice at −16 LUFS, the bed under it and alone in the pauses, handed on while spoken")
    func narration() async throws {
        let chunks = Locked<[AudioBuffer]>([])
        let rendered = try await SleepNarration(engine: ToneEngine()).render(script, seconds: 45, output: { chunk in chunks.withLockedValue { $0.append(chunk.audio) } })
        let audio = rendered.audio
        #expect(audio.samples.count == AudioBuffer.sampleCount(45, audio.sampleRate))
        #expect(chunks.withLockedValue { $0.count } >= 4)
        #expect(chunks.withLockedValue { $0.flatMap(\.samples) } == audio.samples)
        for phrase in rendered.timeline.phrases {
            #expect(abs(try heardLoudness(rendered, phrase) - (-16)) < 1, "\(phrase.text)")
        }
        #expect(audio.peak <= amplitude(decibels: -1) + 1e-4)
        // In the long pause the bed plays on its own, well under the voice.
        let pause = try #require(rendered.timeline.pauses.max { $0.seconds < $1.seconds })
        let alone = audio.slice(from: Double(pause.startMs) / 1000 + 1.5, to: Double(pause.endMs) / 1000 - 1.5)
        let phrase = rendered.timeline.phrases[1]
        let voice = audio.rms(AudioBuffer.sampleCount(Double(phrase.startMs) / 1000, audio.sampleRate)..<AudioBuffer.sampleCount(Double(phrase.endMs) / 1000, audio.sampleRate))
        #expect(alone.rms() > 0, "the bed is heard in the pauses")
        #expect(decibels(voice) - decibels(alone.rms()) > 10, "voice \(decibels(voice)) dBFS, bed \(decibels(alone.rms())) dBFS")
        #expect(abs(try Loudness.integrated(alone) - (-36)) < 2)
    }

    @Test("a narration of no set length is mixed the same way, at the end")
    func natural() async throws {
        let rendered = try await SleepNarration(engine: ToneEngine()).render(script, seconds: nil)
        let speech = try await ScriptRenderer(engine: ToneEngine()).render(script, rate: 0.9)
        #expect(rendered.audio.samples.count == speech.audio.samples.count)
        for phrase in rendered.timeline.phrases { #expect(abs(try heardLoudness(rendered, phrase) - (-16)) < 1) }
    }
}

/// The tone engine holding phrases until `letGo()`: every phrase but `passing` (and each render's
/// first, with `openings`), or with `holding`, that one phrase alone. It counts the phrases it has
/// spoken, and `spoken(atLeast:)` waits for a count.
final class HeldEngine: SpeechEngine, @unchecked Sendable {
    let name = "held", version = "1"
    private let holds: @Sendable (String) -> Bool
    private struct Gate {
        var free = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var spoken = 0
        var watchers: [(count: Int, resume: CheckedContinuation<Void, Never>)] = []
    }
    private let gate = Locked(Gate())
    init(passing: String, openings: Bool = false) {
        holds = { text in text != passing && !(openings && SpeechRequests.opening) }
    }
    init(holding: String) { holds = { $0 == holding } }
    func letGo() {
        let waiting = gate.withLockedValue { gate in
            gate.free = true
            defer { gate.waiting = [] }
            return gate.waiting
        }
        for phrase in waiting { phrase.resume() }
    }
    /// Returns once `count` phrases have been spoken.
    func spoken(atLeast count: Int) async {
        await withCheckedContinuation { watcher in
            let reached = gate.withLockedValue { gate in
                if gate.spoken < count { gate.watchers.append((count, watcher)) }
                return gate.spoken >= count
            }
            if reached { watcher.resume() }
        }
    }
    func voices() async throws -> [Voice] { try await ToneEngine().voices() }
    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        if holds(text) {
            await withCheckedContinuation { phrase in
                let free = gate.withLockedValue { gate in
                    if !gate.free { gate.waiting.append(phrase) }
                    return gate.free
                }
                if free { phrase.resume() }
            }
        }
        let speech = try await ToneEngine().synthesize(text, voice: voice, rate: rate)
        let reached = gate.withLockedValue { gate in
            gate.spoken += 1
            let spoken = gate.spoken
            defer { gate.watchers.removeAll { $0.count <= spoken } }
            return gate.watchers.filter { $0.count <= spoken }.map(\.resume)
        }
        for watcher in reached { watcher.resume() }
        return speech
    }
}
