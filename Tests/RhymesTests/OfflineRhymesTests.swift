import Foundation
@testable import Rhymes
import Testing

/// The pack a phone keeps to rhyme offline, read back as the web app reads it.
struct OfflinePack {
    struct Entry { var group: Int; var bucket: Int; var syllables: Int; var rank: Int? }
    var header: [Substring]
    var buckets: [Substring]
    var words: [String: Entry] = [:]
    var groups: [[String]] = []

    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        header = lines[0].split(separator: " ")
        buckets = lines[1].split(separator: " ")
        for line in lines.dropFirst(2) where !line.isEmpty {
            var fields = line.split(separator: " ")
            let bucket = Int(fields.removeFirst())!
            var members: [String] = []
            for field in fields {
                let parts = field.split(separator: ":")
                let word = String(parts[0])
                words[word] = Entry(group: groups.count, bucket: bucket, syllables: Int(parts[1])!, rank: parts.count > 2 ? Int(parts[2]) : nil)
                members.append(word)
            }
            groups.append(members)
        }
    }
}

@Suite("Offline rhymes")
struct OfflineRhymesTests {
    static let pack = OfflinePack(OfflineRhymes.text(of: sharedEngine.dictionary))

    @Test("the pack names its format and version, holds every dictionary word once, and each group common words first")
    func layout() throws {
        let pack = Self.pack
        #expect(pack.header.prefix(2) == ["reverie-rhymes", "1"])
        #expect(Int(pack.header[2]) == pack.words.count)
        #expect(Int(pack.header[3]) == pack.groups.count)
        #expect(pack.words.count == sharedEngine.dictionary.count)
        for group in pack.groups {
            let ranks = group.map { pack.words[$0]!.rank ?? Int.max }
            #expect(ranks == ranks.sorted())
        }
        // A word, its syllables and the rhymes a writer would expect first.
        let night = try #require(pack.words["night"])
        #expect(night.syllables == 1)
        #expect(pack.groups[night.group].prefix(8).contains("light"))
        #expect(pack.words["tomorrow"]?.syllables == 3)
        #expect(pack.words["the"]?.rank == 0)
    }

    @Test("perfect rhymes on the device are the engine's, and words in one near bucket rhyme as the engine hears them")
    func agreesWithTheEngine() throws {
        let pack = Self.pack, engine = sharedEngine
        // Perfect: the group of a word's usual pronunciation is among the engine's perfect rhymes.
        for word in ["night", "heart", "away", "fire", "river", "tomorrow"] {
            let group = pack.groups[try #require(pack.words[word]).group].filter { $0 != word }
            let engines = Set(engine.perfectRhymes(of: word))
            #expect(group.allSatisfy(engines.contains), "\(word)")
        }
        // Near: among the 3,000 commonest words, pairs that share a bucket but not a group.
        let common = pack.words.filter { ($0.value.rank ?? .max) < 3_000 }.sorted { $0.value.rank! < $1.value.rank! }
        var byBucket: [Int: [(String, OfflinePack.Entry)]] = [:]
        for (word, entry) in common { byBucket[entry.bucket, default: []].append((word, entry)) }
        var pairs = 0, agreed = 0
        for members in byBucket.values {
            for (i, a) in members.enumerated() {
                for b in members[(i + 1)...] where a.1.group != b.1.group {
                    pairs += 1
                    if engine.rhymeType(a.0, b.0) != nil { agreed += 1 }
                }
            }
        }
        let precision = Double(agreed) / Double(pairs)
        print("offline near rhymes: \(agreed) of \(pairs) bucket pairs among the 3,000 commonest words rhyme for the engine (\(String(format: "%.2f", precision)))")
        // How many of the engine's near rhymes the device finds: it gives up some for never being wrong.
        var found = 0, heard = 0
        // (Forty words: the engine's near search is a scan of the dictionary, slow in a debug build.)
        for (word, entry) in common.prefix(40) {
            for near in engine.nearRhymes(of: word, limit: 500) {
                guard let other = pack.words[near.word], (other.rank ?? .max) < 3_000 else { continue }
                heard += 1
                if other.bucket == entry.bucket { found += 1 }
            }
        }
        print("offline near rhymes: \(found) of the engine's \(heard) near rhymes of the 40 commonest words are found (\(String(format: "%.2f", Double(found) / Double(max(heard, 1)))))")
        #expect(pairs > 1_000)
        #expect(precision >= 0.8)
        // It gives up most of them for never being wrong (0.17 to 0.18 measured), but not all.
        #expect(heard > 100 && Double(found) / Double(heard) >= 0.1, "\(found) of \(heard)")
        // The buckets the editor relies on.
        #expect(OfflineRhymes.nearBucket(Pronunciation(arpabet: "T AY1 M")!) == OfflineRhymes.nearBucket(Pronunciation(arpabet: "M AY1 N")!))
        #expect(OfflineRhymes.nearBucket(Pronunciation(arpabet: "L AH1 V")!) == OfflineRhymes.nearBucket(Pronunciation(arpabet: "IH0 N AH1 F")!))
        #expect(OfflineRhymes.nearBucket(Pronunciation(arpabet: "K AE1 T")!) == OfflineRhymes.nearBucket(Pronunciation(arpabet: "G L AE1 D")!))
        #expect(OfflineRhymes.nearBucket(Pronunciation(arpabet: "K AE1 T")!) != OfflineRhymes.nearBucket(Pronunciation(arpabet: "K AE1 N")!))
    }
}
