import Bedside
import Foundation
import SpokenScript
import Testing

@Suite("Bedside presets")
struct BedsidePresetTests {
    let library: BedsideLibrary

    init() throws {
        library = try BedsideLibrary.bundled()
    }

    @Test("the full 35-poem library and twelve meditations, each with a title, and an author for every poem")
    func counts() {
        #expect(library.poems.count == 35)
        #expect(library.meditations.count >= 12)
        #expect(Set((library.poems + library.meditations).map(\.id)).count == library.poems.count + library.meditations.count)
        for poem in library.poems + [library.defaultPoem] {
            #expect(poem.author?.isEmpty == false, "\(poem.id) names no author")
        }
        for piece in library.meditations + library.poems {
            #expect(!piece.title.isEmpty && piece.title.count < 60, "\(piece.id): \(piece.title)")
        }
    }

    @Test("every piece reads without a warning: no unknown unit, no pause over the limit")
    func noWarnings() throws {
        for piece in library.meditations + library.poems + [library.defaultMeditation, library.defaultPoem] {
            let parsed = try ScriptParser().parse(piece.script)
            #expect(parsed.warnings.isEmpty, "\(piece.id): \(parsed.warnings)")
            #expect(parsed.hasMarkers, "\(piece.id) has no pause markers")
        }
    }

    @Test("meditations last 2 to 15 minutes")
    func meditationLengths() {
        for meditation in library.meditations {
            #expect((120...900).contains(meditation.estimatedSeconds), "\(meditation.id): \(Int(meditation.estimatedSeconds)) s")
        }
    }

    @Test("poems use the markers as the seed does: Title (0.3s), by Author (2s), a pause after every line, the longest at the end")
    func poemMarkers() throws {
        for poem in library.poems + [library.defaultPoem] {
            let lines = poem.script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines[0].hasSuffix(" (0.3s)"), "\(poem.id): \(lines[0])")
            #expect(lines[1].hasPrefix("by ") && lines[1].hasSuffix(" (2s)"), "\(poem.id): \(lines[1])")
            let verse = lines.dropFirst(3).filter { !$0.isEmpty }
            #expect(verse.allSatisfy { $0.range(of: #"\(\d+(\.\d+)?s\)$"#, options: .regularExpression) != nil }, "\(poem.id) has a line without a pause")
            #expect(verse.last?.hasSuffix("(4s)") == true)
        }
    }

    @Test("SOURCES.md says where every poem comes from and that it was published before 1931")
    func sources() throws {
        let sources = try BedsideLibrary.poemSources()
        for poem in library.poems {
            let name = String(poem.id.dropFirst("poem.".count))
            let row = try #require(sources.split(separator: "\n").first { $0.hasPrefix("| `\(name).txt` |") }, "\(name) is not in SOURCES.md")
            let columns = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let published = columns[3].matches(of: /\b(1[0-9]{3})\b/).compactMap { Int($0.1) }
            #expect(!published.isEmpty && published.allSatisfy { $0 < 1931 }, "published: \(row)")
            let died = try #require(columns[4].firstMatch(of: /died in (1[0-9]{3})/).flatMap { Int($0.1) }, "\(row) gives no death year")
            #expect(died < 1956, "\(row)")
            #expect(row.contains(poem.title), "\(row) does not name \(poem.title)")
        }
    }

    @Test("the default meditation and poem are there for a person who deleted all of their own")
    func defaults() {
        #expect(library.defaultMeditation.kind == .meditation && !library.defaultMeditation.title.isEmpty)
        #expect(library.defaultPoem.kind == .poem && library.defaultPoem.author?.contains("Basho") == true)
        #expect(library.preset("poem.innisfree")?.title == "The Lake Isle of Innisfree")
        #expect(library.preset("poem.nothing") == nil)
    }
}

@Suite("Bedside random pool")
struct ContentPoolTests {
    @Test("no piece plays twice until every piece in the pool has played, over many rounds")
    func noRepeats() {
        var random = SystemRandomNumberGenerator()
        let pool = (1...7).map { "p\($0)" }
        var played: [String] = []
        var sequence: [String] = []
        for _ in 0..<(7 * 30) {
            let (id, next) = ContentPool.next(from: pool, played: played, using: &random)!
            sequence.append(id)
            played = next
        }
        for round in stride(from: 0, to: sequence.count, by: 7) {
            #expect(Set(sequence[round..<(round + 7)]).count == 7, "round \(round / 7) repeats: \(sequence[round..<(round + 7)])")
        }
        // A new round never opens with the piece the last one closed with.
        for index in stride(from: 7, to: sequence.count, by: 7) {
            #expect(sequence[index] != sequence[index - 1])
        }
    }

    @Test("a person's own piece joins the pool; one removed from it is forgotten; an empty pool gives nothing")
    func changingPool() {
        var random = SystemRandomNumberGenerator()
        var played = ["a", "b"]
        let (id, next) = ContentPool.next(from: ["a", "b", "mine"], played: played, using: &random)!
        #expect(id == "mine" && next == ["a", "b", "mine"])
        played = next
        let (after, kept) = ContentPool.next(from: ["a", "c"], played: played, using: &random)!
        #expect(after == "c" && kept == ["a", "c"])
        #expect(ContentPool.next(from: [], played: ["a"], using: &random) == nil)
        let (only, _) = ContentPool.next(from: ["x"], played: ["x"], using: &random)!
        #expect(only == "x")
    }
}
