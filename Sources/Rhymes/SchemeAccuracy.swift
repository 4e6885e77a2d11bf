import Foundation

/// How often the analyser's letters for a stanza group its lines as the poet did, on a folder
/// of stanzas in the Chicago Rhyming Poetry Corpus `.pgold` format (see
/// `../shared/data/rhyme-dev/README.md`): each file's stanzas become one text, one line per end
/// word, stanzas between blank lines, analysed as a person pasting it would. `make bench` prints
/// it, and a test holds it to its floor when the set is there.
public struct SchemeAccuracy {
    public struct Stanza {
        public var words: [String]
        public var gold: [String]
    }

    public var files: [(name: String, stanzas: [Stanza])]

    public init(folder: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pgold") }.sorted()
        files = try names.map { name in
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            var stanzas: [Stanza] = []
            var block: [[Substring]] = []
            let lines: [Substring] = text.split(separator: "\n", omittingEmptySubsequences: false) + [""]
            for line in lines {
                let fields = line.split(separator: " ")
                if !fields.isEmpty { block.append(fields); continue }
                if block.count >= 2, block[0].count - 1 == block[1].count {
                    stanzas.append(Stanza(words: block[0].dropFirst().map(String.init), gold: block[1].map(String.init)))
                }
                block = []
            }
            return (name, stanzas)
        }
    }

    /// The groups of positions a labelling makes (same label, same group), in a comparable form.
    public static func partition(_ labels: [String?]) -> [[Int]] {
        var groups: [String: [Int]] = [:]
        for (position, label) in labels.enumerated() { groups[label ?? "line \(position)", default: []].append(position) }
        return groups.values.sorted { $0[0] < $1[0] }
    }

    public struct Result {
        public var correct = 0
        public var total = 0
        public var missed = 0      // wrong stanzas whose analysis joins fewer pairs than the poet's
        public var errors: [(words: [String], gold: [String], ours: [String])] = []
        public var seconds = 0.0
        public var accuracy: Double { total == 0 ? 0 : Double(correct) / Double(total) }
    }

    public func measure(_ engine: RhymeEngine) -> (total: Result, byFile: [(String, Result)]) {
        var total = Result()
        var byFile: [(String, Result)] = []
        for file in files {
            var result = Result()
            let text = file.stanzas.map { $0.words.joined(separator: "\n") }.joined(separator: "\n\n")
            let start = DispatchTime.now().uptimeNanoseconds
            let lines = engine.analyze(text).lines.filter { $0.scheme != nil }
            result.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            var offset = 0
            for stanza in file.stanzas {
                let ours = lines[offset..<offset + stanza.words.count].map(\.scheme)
                offset += stanza.words.count
                result.total += 1
                let mine = Self.partition(ours), gold = Self.partition(stanza.gold)
                if mine == gold {
                    result.correct += 1
                } else {
                    func linked(_ groups: [[Int]]) -> Int { groups.reduce(0) { $0 + $1.count * ($1.count - 1) / 2 } }
                    if linked(mine) < linked(gold) { result.missed += 1 }
                    result.errors.append((stanza.words, stanza.gold, ours.map { $0 ?? "-" }))
                }
            }
            byFile.append((file.name, result))
            total.correct += result.correct
            total.total += result.total
            total.missed += result.missed
            total.seconds += result.seconds
            total.errors += result.errors
        }
        return (total, byFile)
    }
}
