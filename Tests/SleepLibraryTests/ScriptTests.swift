import Foundation
import SleepLibrary
import SpokenScript
import Testing

/// Issue 36: our own script for every item of the catalog, written for a listener falling asleep.
@Suite("Wind Down scripts")
struct ScriptTests {
    /// The rate Wind Down's narration speaks at (`SleepNarration`'s default, a little slower than talk).
    static let sleepRate = 0.9

    /// The items issue 36 writes. (The three yoga nidras were written earlier, for a render that
    /// stretches their pauses.)
    static let written = library.items.filter { $0.type != .yogaNidra }

    @Test("every story, meditation, breathing exercise, hypnosis and affirmation session has a script of its own, which parses with no warnings",
          arguments: written.map(\.id))
    func parses(id: String) throws {
        let item = try #require(library.item(id))
        let text = try #require(SleepLibrary.script(named: item.audio ?? item.id), "\(id) has no script in Sources/SleepLibrary/Resources/scripts")
        let parsed = try ScriptParser().parse(text)
        #expect(parsed.warnings.isEmpty, "\(id): \(parsed.warnings)")
        // Our own words only: no digits read out as numerals, no stage directions in parentheses.
        #expect(!parsed.phrases.contains { $0.text.contains(where: \.isNumber) }, "\(id) has a digit the voice would read")
    }

    @Test("each script lasts the catalog's length within 2%, as estimated at the sleep rate (words and pauses)",
          arguments: library.items.map(\.id))
    func length(id: String) throws {
        let item = try #require(library.item(id))
        let text = try #require(SleepLibrary.script(named: item.audio ?? item.id))
        let estimate = try ScriptParser().parse(text).estimatedSeconds(rate: Self.sleepRate)
        let target = Double(item.duration)
        #expect(abs(estimate - target) / target <= 0.02, "\(id): \(Int(estimate)) s estimated for \(item.duration) s")
    }

    @Test("a story slows toward its end: its last third has longer pauses between phrases than its first")
    func storiesSlowDown() throws {
        for item in library.items(of: .sleepStory) {
            let parsed = try ScriptParser().parse(try #require(SleepLibrary.script(named: item.audio ?? item.id)))
            var pauses: [Double] = []
            for segment in parsed.segments { if case let .pause(pause) = segment { pauses.append(pause.seconds) } }
            let third = pauses.count / 3
            let early = pauses.prefix(third).reduce(0, +) / Double(third)
            let late = pauses.suffix(third).dropLast().reduce(0, +) / Double(third - 1)   // the long final silence aside
            #expect(late > early * 1.3, "\(item.id): \(early) s early, \(late) s late")
        }
    }

    @Test("a breathing exercise counts on its pattern's beats: aloud, then by silence, each cycle as long as the pattern",
          arguments: library.items(of: .breathingExercise).map(\.id))
    func breathingBeats(id: String) throws {
        let item = try #require(library.item(id))
        let counts = try #require(item.technique).split(separator: "·").compactMap { part in
            part.split(separator: " ").last.flatMap { Int($0) }
        }
        let cycle = Double(counts.reduce(0, +))
        let parsed = try ScriptParser().parse(try #require(SleepLibrary.script(named: item.audio ?? item.id)))
        var beats: [Double] = []
        for segment in parsed.segments { if case let .pause(pause) = segment, pause.beat { beats.append(pause.seconds) } }
        // Counted aloud: a word a second, so most beats are one second; and they add up to whole cycles.
        #expect(beats.filter { $0 == 1 }.count >= Int(cycle) * 2, "\(id): too few counted seconds")
        let total = beats.reduce(0, +)
        #expect(total.truncatingRemainder(dividingBy: cycle) == 0, "\(id): \(total) s of beats is not whole \(cycle) s cycles")
        // Each phrase on a beat is short enough to be said inside it.
        var spoken = 0.0
        for segment in parsed.segments {
            switch segment {
            case let .phrase(phrase): spoken = ParsedScript.spokenSeconds(phrase.text, rate: Self.sleepRate)
            case let .pause(pause) where pause.beat: #expect(spoken < pause.seconds * 0.9, "\(id): a phrase too long for its \(pause.seconds) s beat")
            default: break
            }
        }
    }
}
