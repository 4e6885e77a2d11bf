import AudioRender
import Foundation
@testable import Speech
import Testing

@Suite("Word alignment and captions")
struct WordAlignerTests {
    @Test("equal counts pair words and spans one to one")
    func oneToOne() {
        let words = WordAligner.align("Breathe in, slowly.", spans: [(0.1, 0.4), (0.45, 0.6), (0.8, 1.2)])
        #expect(words == [WordTiming(text: "Breathe", start: 0.1, end: 0.4), WordTiming(text: "in,", start: 0.45, end: 0.6), WordTiming(text: "slowly.", start: 0.8, end: 1.2)])
    }

    @Test("when the engine joins words, they share its span by letters, in order, inside the spoken time")
    func joined() {
        let words = WordAligner.align("for the world", spans: [(1.0, 1.6), (2.0, 2.5)])
        #expect(words.map(\.text) == ["for", "the", "world"])
        #expect(words.first?.start == 1.0)
        #expect(words.last?.end == 2.5)
        for (a, b) in zip(words, words.dropFirst()) { #expect(a.end <= b.start + 1e-9) }
        #expect(words.allSatisfy { $0.start >= 1.0 && $0.end <= 2.5 })
    }

    @Test("punctuation alone is not a word")
    func punctuation() {
        #expect(WordAligner.words(in: "Wait — now! …") == ["Wait", "now!"])
    }

    @Test("WebVTT has one cue per phrase with exact stamps")
    func vtt() {
        let timeline = RenderTimeline(engine: "tone", voice: nil, rate: 1, durationMs: 3_723_456, phrases: [
            .init(text: "Hello --> there", line: 1, startMs: 0, endMs: 1250, words: []),
            .init(text: "Late", line: 2, startMs: 3_723_000, endMs: 3_723_456, words: []),
        ], pauses: [], warnings: [])
        #expect(timeline.webVTT == "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.250\nHello -> there\n\n2\n01:02:03.000 --> 01:02:03.456\nLate\n")
    }
}

@Suite("Script renderer (tone engine)")
struct ScriptRendererTests {
    @Test("pauses are exact to the sample and phrases are trimmed of the engine's silence")
    func exactPauses() async throws {
        let rendered = try await ScriptRenderer(engine: ToneEngine()).render("one two (0.3s) three (2s) four")
        let timeline = rendered.timeline
        #expect(timeline.phrases.map(\.text) == ["one two", "three", "four"])
        #expect(timeline.pauses.map(\.seconds) == [0.3, 2])
        #expect(timeline.pauses.map { $0.endMs - $0.startMs } == [300, 2000])
        // Tones of 0.5, 0.25 and 0.25 s with their engine silence removed, but for the quiet
        // half-fade (4 ms) kept at each edge; between phrases those margins are part of the
        // pause (voice to voice it lasts what the script says), so only the first and last count.
        #expect(timeline.phrases.map { $0.endMs - $0.startMs } == [500, 250, 250])
        #expect(abs(rendered.audio.duration - (3.3 + 2 * 0.004)) < 0.002)
        #expect(zip(timeline.phrases, timeline.pauses).allSatisfy { $0.endMs == $1.startMs })
        let gaps = silences(in: rendered.audio)
        #expect(gaps.count == 2)
        #expect(abs(gaps[0].length - 0.3) < 0.01 && abs(gaps[1].length - 2) < 0.01)
    }

    @Test("a leading marker is silence before the first words; progress counts phrases")
    func leadingPauseAndProgress() async throws {
        final class Counter: @unchecked Sendable { var calls: [(Int, Int)] = [] }
        let counter = Counter()
        let rendered = try await ScriptRenderer(engine: ToneEngine()).render("(1s) Welcome. (0.5s) Again.") { counter.calls.append(($0, $1)) }
        #expect(rendered.timeline.pauses.first?.endMs == 1000)
        #expect((1000...1010).contains(rendered.timeline.phrases.first?.startMs ?? 0))
        #expect(counter.calls.map(\.0) == [0, 1, 2])
        #expect(counter.calls.allSatisfy { $0.1 == 2 })
    }

    @Test("word times are shifted with the trim and stay inside their phrase")
    func wordsInsidePhrases() async throws {
        let timeline = try await ScriptRenderer(engine: ToneEngine()).render("a b c (1s) d e").timeline
        for phrase in timeline.phrases {
            #expect(phrase.words.first?.startMs == phrase.startMs)
            #expect(phrase.words.allSatisfy { $0.startMs >= phrase.startMs && $0.endMs <= phrase.endMs })
        }
    }

    @Test("the rate must be 0.8 to 1.2")
    func rate() async {
        await #expect(throws: SpeechError.invalidRate(1.5)) { try await ScriptRenderer(engine: ToneEngine()).render("hi", rate: 1.5) }
    }
}

@Suite("eSpeak NG letter-to-sound")
struct ESpeakPhonemeTests {
    @Test("eSpeak's phoneme names become ARPAbet with stress on the vowels")
    func mnemonics() {
        #expect(ESpeakPhonemes.arpabet(fromMnemonics: "h @ l 'oU") == "HH AH0 L OW1")
        #expect(ESpeakPhonemes.arpabet(fromMnemonics: "t2 'aI m") == "T AY1 M")
        #expect(ESpeakPhonemes.arpabet(fromMnemonics: "b r ,eI n dZ I2 l 'i: n @") == "B R EY2 N JH IH0 L IY1 N AH0")
        #expect(ESpeakPhonemes.arpabet(fromMnemonics: "D @") == "DH AH1")   // a word always has a main stress
        #expect(ESpeakPhonemes.arpabet(fromMnemonics: "s t") == nil)        // no vowel, no word
    }

    @Test("real guesses for words the dictionary lacks, and for ones it has", arguments: [
        ("yeet", "Y IY1 T"), ("blorp", "B L AO1 R P"), ("time", "T AY1 M"), ("water", "W AO1 T ER0"), ("queen", "K W IY1 N"),
    ])
    func guesses(word: String, expected: String) {
        #expect(ESpeakPhonemes.arpabet(for: word) == expected)
    }
}

@Suite("Cutting a render for a far seek")
struct RenderCutsTests {
    @Test("a cut asked of a render is answered once, however the render ends: taken by it and left unanswered, queued, or asked after the end, it gets no")
    func alwaysAnswered() async {
        let cuts = RenderCuts()
        // Taken by the render, which ends without answering (it was placing its last phrase).
        async let taken = cuts.cut(near: 10)
        let request = await cuts.next()
        #expect(request?.seconds == 10)
        // Queued behind it, not taken yet.
        async let queued = cuts.cut(near: 20)
        cuts.end()
        #expect(await taken == nil)
        #expect(await queued == nil)
        // An answer after the end is not given twice (a second resume would stop the server).
        if let request { cuts.answer(request, .init(phrase: 3, seconds: 10, end: nil)) }
        #expect(await cuts.cut(near: 30) == nil, "asked after the end")
        #expect(await cuts.next() == nil)
    }

    @Test("a render whose script cannot be read still answers a cut asked of it")
    func failedRenderAnswers() async throws {
        let cuts = RenderCuts()
        await #expect(throws: SpeechError.self) {
            try await ScriptRenderer(engine: ToneEngine()).render("Rest.", rate: 3, fitting: 10, cuts: cuts)
        }
        #expect(await cuts.cut(near: 5) == nil)
    }
}
