import Foundation
import Reader
import Speech
import Testing

/// Articles read aloud: the script each chapter becomes, and the real voices reading the pages
/// that trip voices up (stray punctuation, other languages) to the end.
@Suite("Articles read aloud", .serialized)
struct ArticleSpeechTests {
    /// A page with what a careless reader chokes on: a scene break of stars, a line of dashes,
    /// pause-marker look-alikes, emoji, and passages in German, Russian, Japanese and Arabic.
    static let awkward = """
        The harbour was quiet (2s) before dawn, and the ferry waited (5m) at its rope.

        * * *

        ——

        “Guten Morgen”, sagte der Fährmann, „die Überfahrt dauert zwanzig Minuten.“

        Он улыбнулся и посмотрел на море.

        船はゆっくりと港を出た。

        قال البحار: صباح الخير.

        🎉 ✨ … ?! ;; —

        Then, at last, the bell rang… and we were away!
        """

    @Test("each paragraph is one line; lines without a letter or digit are left out; markers are never made of the text")
    func script() {
        let units = Self.awkward.utf16.count
        let segments = ArticleSpeech.segments(of: Self.awkward, in: 0..<units)
        let lines = segments.flatMap(\.lines)
        let utf16 = Array(Self.awkward.utf16)
        let spoken = lines.map { String(decoding: utf16[$0.location..<$0.location + $0.length], as: UTF16.self) }
        #expect(spoken.count == 6, "\(spoken)")
        #expect(spoken.first == "The harbour was quiet (2s) before dawn, and the ferry waited (5m) at its rope.")
        #expect(spoken.last == "Then, at last, the bell rang… and we were away!")
        #expect(!spoken.contains { $0.contains("* * *") || $0.contains("🎉") })
        #expect(segments.allSatisfy { !$0.script.contains("(") })
        #expect(segments[0].lines.reduce(0) { $0 + $1.length } <= ArticleSpeech.openingUnits, "the first segment is short, so its voice starts at once")
        #expect(segments.count == 2)
        #expect(segments.map { $0.script.split(separator: "\n").count } == segments.map(\.lines.count))
    }

    @Test("a paragraph longer than a segment is cut at sentence ends, and the lines cover it")
    func longParagraph() {
        let sentence = "The tide came in over the flat grey sand while the gulls argued overhead. "
        let text = String(repeating: sentence, count: 80)
        let segments = ArticleSpeech.segments(of: text, in: 0..<text.utf16.count)
        let lines = segments.flatMap(\.lines)
        #expect(lines.count > 2)
        #expect(lines.allSatisfy { $0.length <= ArticleSpeech.segmentUnits })
        let utf16 = Array(text.utf16)
        for line in lines.dropLast() {
            #expect(String(decoding: utf16[line.location..<line.location + line.length], as: UTF16.self).hasSuffix("overhead."))
        }
        #expect(lines.last.map { $0.location + $0.length } == text.utf16.count - 1)
    }

    @Test("the real voices read the awkward page to its end: every line spoken, words timed", arguments: RealEngine.allCases)
    func realVoices(_ kind: RealEngine) async throws {
        let segments = ArticleSpeech.segments(of: Self.awkward, in: 0..<Self.awkward.utf16.count)
        var spokenLines = 0
        for segment in segments {
            let rendered = try await ScriptRenderer(engine: kind.engine).render(segment.script)
            let lines = Set(rendered.timeline.phrases.map(\.line))
            #expect(lines == Set(1...segment.lines.count), "\(kind): lines \(lines.sorted()) of \(segment.lines.count)")
            #expect(rendered.timeline.phrases.allSatisfy { $0.endMs > $0.startMs })
            spokenLines += lines.count
        }
        #expect(spokenLines == 6)
    }
}
