import Foundation
import SleepLibrary
import SpokenScript
import Testing

/// Issue 36: our own script for every item of the catalog, written for a listener falling asleep.
@Suite("Wind Down scripts")
struct ScriptTests {
    /// The rate Wind Down's narration speaks at (`SleepNarration`'s default, a little slower than talk).
    static let sleepRate = 0.9

    /// The items issue 36 writes, so far: the breathing exercises' counted beats come with their
    /// renderer. (The three yoga nidras were written earlier, for a render that stretches their pauses.)
    static let written = library.items.filter { $0.type != .breathingExercise && $0.type != .yogaNidra }

    @Test("every story, meditation, hypnosis and affirmation session has a script of its own, which parses with no warnings",
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
          arguments: written.map(\.id))
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
}
