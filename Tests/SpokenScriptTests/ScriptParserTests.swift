import SpokenScript
import Testing

@Suite("Script parser")
struct ScriptParserTests {
    let parser = ScriptParser()

    func phrase(_ text: String, _ line: Int, _ column: Int) -> ScriptSegment {
        .phrase(Phrase(text: text, line: line, column: column))
    }

    func marker(_ seconds: Double, _ line: Int, _ column: Int) -> ScriptSegment {
        .pause(Pause(seconds: seconds, origin: .marker(line: line, column: column)))
    }

    @Test("a beat marker (@4s) is a pause on the beat: its estimate is what the phrase before leaves of it")
    func beatMarker() throws {
        let script = try parser.parse("Breathe in. (@4s) Hold. ( @ 7 s ) Out. (2s)")
        #expect(script.warnings.isEmpty)
        let pauses = script.segments.compactMap { if case let .pause(pause) = $0 { pause } else { nil } }
        #expect(pauses.map(\.beat) == [true, true, false])
        #expect(pauses.map(\.seconds) == [4, 7, 2])
        // Two words at 150 a minute take 0.8 s of the 4, one word 0.4 s of the 7.
        #expect(abs(script.estimatedSeconds(rate: 1) - (4 + 7 + 0.4 + 2)) < 1e-9)
        #expect(abs(script.totalPauseSeconds - (3.2 + 6.6 + 2)) < 1e-9)
    }

    @Test("markers at line ends become exact pauses", arguments: [
        ("(0.3s)", 0.3), ("(2s)", 2.0), ("(1.5m)", 90.0), ("(.5s)", 0.5), ("( 2 s )", 2.0), ("(2S)", 2.0), ("(0.05m)", 3.0),
    ])
    func markerForms(marker text: String, seconds: Double) throws {
        let script = try parser.parse("Breathe in \(text)\nBreathe out")
        #expect(script.segments == [phrase("Breathe in", 1, 1), marker(seconds, 1, 12), phrase("Breathe out", 2, 1)])
        #expect(script.warnings.isEmpty)
        #expect(script.hasMarkers)
    }

    @Test("markers between phrases on one line split them")
    func midLine() throws {
        let script = try parser.parse("Splash! (0.5s) Silence again. (4s)")
        #expect(script.segments == [phrase("Splash!", 1, 1), marker(0.5, 1, 9), phrase("Silence again.", 1, 16), marker(4, 1, 31)])
    }

    @Test("the seed's poem format: title, author, stanzas")
    func poemFormat() throws {
        let text = """
        The Lake Isle (0.3s)
        by a poet (2s)

        I will arise and go now (0.6s)
        and a small cabin build there, (2s)
        """
        let script = try parser.parse(text)
        #expect(script.phrases.map(\.text) == ["The Lake Isle", "by a poet", "I will arise and go now", "and a small cabin build there,"])
        // The blank line after an author's pause adds nothing.
        #expect(script.totalPauseSeconds == 0.3 + 2 + 0.6 + 2)
    }

    @Test("with markers, unmarked lines join one phrase; a blank line is a stanza break")
    func joinedLines() throws {
        let script = try parser.parse("the wood drake\nrests on the water (1s)\nstill\n\nlater")
        #expect(script.segments == [
            phrase("the wood drake rests on the water", 1, 1), marker(1, 2, 20),
            phrase("still", 3, 1), .pause(Pause(seconds: 1.5, origin: .stanzaBreak)),
            phrase("later", 5, 1),
        ])
    }

    @Test("parenthesised text that is not a marker is spoken as written")
    func plainParentheses() throws {
        let script = try parser.parse("Breathe (softly) in (2 apples) and (2) and (s) out (2s)")
        #expect(script.phrases.map(\.text) == ["Breathe (softly) in (2 apples) and (2) and (s) out"])
        #expect(script.warnings.isEmpty)
    }

    @Test("nested and unbalanced parentheses are text; the marker inside still counts")
    func oddParentheses() throws {
        let script = try parser.parse("((2s)) rest (and ((1s) breathe")
        #expect(script.segments == [phrase("(", 1, 1), marker(2, 1, 2), phrase(") rest (and (", 1, 6), marker(1, 1, 19), phrase("breathe", 1, 24)])
    }

    @Test("a marker with an unknown unit is reported with its position and left out")
    func unknownUnit() throws {
        let script = try parser.parse("Hold (2s)\nBreathe (2x) out")
        #expect(script.phrases.map(\.text) == ["Hold", "Breathe out"])
        #expect(script.warnings.count == 1)
        #expect(script.warnings[0].line == 2)
        #expect(script.warnings[0].column == 9)
        #expect(script.warnings[0].message.contains("(2x)"))
    }

    @Test("a pause over ten minutes is shortened and reported")
    func overCap() throws {
        let script = try parser.parse("Sleep now (99m)")
        #expect(script.segments == [phrase("Sleep now", 1, 1), marker(600, 1, 11)])
        #expect(script.warnings == [ScriptWarning(line: 1, column: 11,
            message: "(99m) is over the limit of 10 minutes for one pause; it is shortened to 10 minutes.")])
    }

    @Test("without markers: sentences, line ends and stanza breaks get automatic pauses")
    func automaticPauses() throws {
        let text = "An old silent pond\nA frog jumps in. Splash!\n\n\nSilence again."
        let script = try parser.parse(text)
        #expect(!script.hasMarkers)
        #expect(script.segments == [
            phrase("An old silent pond", 1, 1), .pause(Pause(seconds: 0.6, origin: .lineEnd)),
            phrase("A frog jumps in.", 2, 1), .pause(Pause(seconds: 0.8, origin: .sentenceEnd)),
            phrase("Splash!", 2, 18), .pause(Pause(seconds: 1.5, origin: .stanzaBreak)),
            phrase("Silence again.", 5, 1),
        ])
    }

    @Test("automatic pauses follow the configured lengths")
    func customAutomaticPauses() throws {
        let parser = ScriptParser(automaticPauses: .init(lineEnd: 0.2, sentenceEnd: 0.4, stanzaBreak: 3))
        let script = try parser.parse("one\ntwo.\n\nthree")
        #expect(script.totalPauseSeconds == 0.2 + 3)
    }

    @Test("Windows line endings and tabs are read like any other")
    func whitespace() throws {
        let script = try parser.parse("\tIn\t (1s)\r\n  out  \r\n")
        #expect(script.segments == [phrase("In", 1, 2), marker(1, 1, 6), phrase("out", 2, 3)])
    }

    @Test("a script of only markers or white space has nothing to say", arguments: ["", "   \n\n", "(2s) (3s)"])
    func nothingToSay(text: String) {
        #expect(throws: SpokenScriptError.nothingToSay) { try parser.parse(text) }
    }

    @Test("a script over the length limit is refused before any work")
    func tooLong() {
        let text = String(repeating: "a", count: 200_001)
        #expect(throws: SpokenScriptError.tooLong(characters: 200_001, limit: 200_000)) { try parser.parse(text) }
        #expect(throws: Never.self) { try parser.parse(String(repeating: "a ", count: 100_000)) }
    }

    @Test("leading markers make silence before the first words")
    func leadingPause() throws {
        let script = try parser.parse("(3s) Welcome.")
        #expect(script.segments == [marker(3, 1, 1), phrase("Welcome.", 1, 6)])
    }

    @Test("a script's estimated length is its words at 150 a minute plus its pauses, and halves at double speed")
    func estimate() throws {
        let script = try parser.parse("One two three four five. (10s) Six seven eight nine ten. (1.5m)")
        #expect(abs(script.estimatedSeconds() - (4 + 10 + 90)) < 0.001)
        #expect(abs(script.estimatedSeconds(rate: 2) - (2 + 10 + 90)) < 0.001)
    }
}
