import Foundation
@testable import Rhymes
import Speech
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The installed dictionary, indexed once for all tests (in a scratch cache).
let sharedEngine: RhymeEngine = {
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-rhymes-tests")
    return try! RhymeEngine.installed(cacheDirectory: cache)
}()

@Suite("Pronouncing dictionary")
struct DictionaryTests {
    @Test("the text format: alternates, comments, and lines that do not parse")
    func parsing() {
        let text = """
        ;;; a comment line
        read R EH1 D
        read(2) R IY1 D
        aalborg AO1 L B AO0 R G # place, danish
        broken X Y1 Z
        Tomato T AH0 M EY1 T OW2
        """
        let dictionary = PronouncingDictionary.parse(text)
        #expect(dictionary.pronunciations(of: "read").map(\.arpabet) == ["R EH1 D", "R IY1 D"])
        #expect(dictionary.pronunciations(of: "aalborg").map(\.arpabet) == ["AO1 L B AO0 R G"])
        #expect(dictionary.commented == ["aalborg"])
        #expect(dictionary.pronunciations(of: "broken").isEmpty)
        #expect(dictionary.pronunciations(of: "tomato").first?.syllableCount == 3)
    }

    @Test("every line of the dictionary is in the index as written, and later loads map the cached index")
    func index() throws {
        let dictionary = sharedEngine.dictionary
        let source = try #require(PronouncingDictionary.locate())
        // Every pronunciation of the text, read here line by line without the index's code.
        var expected: [String: [String]] = [:]
        for line in try String(contentsOf: source, encoding: .utf8).split(separator: "\n") where !line.hasPrefix(";;;") {
            let body = line.split(separator: "#")[0].split(separator: " ")
            var word = body[0].lowercased()
            if let paren = word.firstIndex(of: "(") { word = String(word[..<paren]) }
            expected[word, default: []].append(body.dropFirst().joined(separator: " "))
        }
        #expect(dictionary.count == expected.count && dictionary.count > 120_000)
        let differing = expected.filter { word, phones in dictionary.pronunciations(of: word).map(\.arpabet) != phones }
        #expect(differing.isEmpty, "\(differing.prefix(3))")
        #expect(Array(dictionary.words) == expected.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

        let data = dictionary.indexData()
        let reloaded = try PronouncingDictionary(index: data)
        #expect(reloaded.indexData() == data && reloaded.commented == dictionary.commented && reloaded.rankedCount == dictionary.rankedCount)
        // Compact: about 51 bytes a word with its pronunciations, rank, rhyme group and near bucket.
        #expect(data.count < 8_000_000, "\(data.count) bytes")

        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-index-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let ranks = PronouncingDictionary.locateWordRanks()
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        try Data("an index of an older format".utf8).write(to: cache.appendingPathComponent("cmudict-123-456.index"))
        _ = try PronouncingDictionary.load(source: source, ranks: ranks, cacheDirectory: cache)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(files.count == 1 && files[0].hasPrefix("cmudict-v2-") && files[0].hasSuffix(".index"), "the older index is removed: \(files)")
        // A damaged index is rebuilt rather than trusted.
        try Data("garbage".utf8).write(to: cache.appendingPathComponent(files[0]))
        let rebuilt = try PronouncingDictionary.load(source: source, ranks: ranks, cacheDirectory: cache)
        #expect(rebuilt.count == dictionary.count)
        #expect(try Data(contentsOf: cache.appendingPathComponent(files[0])) == data)
    }

    @Test("first starts at the same time all get the dictionary and leave one index")
    func concurrentFirstStarts() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-index-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let source = try #require(PronouncingDictionary.locate())
        let ranks = PronouncingDictionary.locateWordRanks()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask { try PronouncingDictionary.load(source: source, ranks: ranks, cacheDirectory: cache).count }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 3 && Set(counts).count == 1 && counts[0] > 120_000)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(files.count == 1 && files[0].hasPrefix("cmudict-v2-"), "\(files)")
    }

    @Test("a damaged index is refused, never read out of bounds")
    func damagedIndex() throws {
        let data = PronouncingDictionary.indexData(parsing: "night N AY1 T\nlight L AY1 T\nread R EH1 D\nread(2) R IY1 D\n", ranks: ["night": 0])
        #expect(RhymeEngine(dictionary: try PronouncingDictionary(index: data)).perfectRhymes(of: "night") == ["light"])
        #expect(throws: RhymesError.self) { try PronouncingDictionary(index: Data("RVRCMU2\n\u{5}".utf8)) }
        #expect(throws: RhymesError.self) { try PronouncingDictionary(index: data.dropLast(4)) }
        // Every single byte changed in the tables after the header: refused, or still answers within bounds.
        for position in PronouncingDictionary.headerSize..<data.count {
            var damaged = data
            damaged[position] ^= 0xFF
            if let dictionary = try? PronouncingDictionary(index: damaged) {
                let engine = RhymeEngine(dictionary: dictionary)
                for word in dictionary.words {
                    _ = engine.perfectRhymes(of: word)
                    _ = engine.nearRhymes(of: word)
                    _ = engine.analyze("\(word)\nnight")
                }
            }
        }
        // A count in the header made huge.
        var huge = data
        huge.replaceSubrange(12..<16, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: RhymesError.self) { try PronouncingDictionary(index: huge) }
    }
}

@Suite("Rhymes")
struct RhymeTests {
    @Test("words are found as writers type them", arguments: [
        ("Night", "night"), ("(night!)", "night"), ("don\u{2019}t", "don't"), ("\u{201C}Hello,\u{201D}", "hello"),
        ("river's", "river's"), ("moonlight's", "moonlight"), ("rivers'", "rivers"), ("moon-drenched", "drenched"),
        ("'cause", "'cause"), ("TIME.", "time"),
    ])
    func normalization(typed: String, found: String) {
        #expect(sharedEngine.lookup(typed)?.word == found)
    }

    @Test("nothing to look up is not a word")
    func notWords() {
        #expect(sharedEngine.lookup("...") == nil)
        #expect(sharedEngine.lookup("") == nil)
        #expect(sharedEngine.lookup("zzqxv") == nil)
        #expect(sharedEngine.perfectRhymes(of: "zzqxv").isEmpty)
    }

    @Test("the rhyming part runs from the last stressed vowel, as in pronouncing")
    func rhymingPart() throws {
        func part(_ word: String) throws -> String { try #require(sharedEngine.lookup(word)?.pronunciations.first).rhymingPart.arpabet }
        #expect(try part("time") == "AY1 M")
        #expect(try part("orange") == "AO1 R AH0 N JH")
        #expect(try part("sycamore") == "AO2 R")
        #expect(try part("the") == "DH AH0")   // no stressed vowel: the whole word
    }

    /// Our own labels for pairs a songwriter would judge.
    static let labelled: [(String, String, RhymeType?)] = [
        ("time", "rhyme", .perfect), ("cat", "hat", .perfect), ("fire", "higher", .perfect), ("nation", "station", .perfect),
        ("ten", "again", .perfect), ("night", "light", .perfect), ("love", "dove", .perfect),
        ("time", "mine", .near), ("home", "alone", .near), ("heart", "hard", .near), ("dream", "seen", .near),
        ("cold", "soul", .near), ("orange", "door hinge", .near),
        ("cat", "dog", nil), ("sky", "tree", nil), ("cat", "hit", nil), ("window", "kitchen", nil),
    ]

    @Test("labelled pairs: perfect, near, or not a rhyme", arguments: labelled)
    func pairs(a: String, b: String, expected: RhymeType?) throws {
        #expect(try type(a, b) == expected, "\(a) / \(b)")
    }

    @Test("love and move look alike but are not a perfect rhyme")
    func eyeRhyme() throws {
        #expect(try type("love", "move") != .perfect)
    }

    /// Rhyme type of two texts; a phrase (`door hinge`) is its words' phones run together.
    func type(_ a: String, _ b: String) throws -> RhymeType? {
        func phones(_ text: String) throws -> [Pronunciation] {
            var result: [Pronunciation] = [[]]
            for word in text.split(separator: " ") {
                let found = try #require(sharedEngine.lookup(String(word)), "\(word)")
                result = result.flatMap { prefix in found.pronunciations.map { prefix + $0 } }
            }
            return result
        }
        return RhymeEngine.rhymeType(among: try phones(a), try phones(b))
    }

    @Test("near rhymes: similar endings, best first, without the word or its perfect rhymes")
    func near() {
        let near = sharedEngine.nearRhymes(of: "time", limit: 500).map(\.word)
        #expect(near.contains("mine") && near.contains("line"))
        #expect(!near.contains("time") && !near.contains("rhyme"))
        let scores = sharedEngine.nearRhymes(of: "time").map(\.score)
        #expect(scores == scores.sorted(by: >) && scores.allSatisfy { $0 >= RhymeEngine.nearThreshold && $0 <= 1 })
    }

    @Test("perfect rhymes agree with the pronouncing library word for word")
    func agreesWithPronouncing() throws {
        let words = ["time", "love", "orange", "heart", "night", "fire", "river", "station", "again", "read", "the", "music",
                     "forever", "away", "tomorrow", "silver", "dream", "alone", "permit", "cold", "sky", "window", "ocean", "din", "dine", "therein"]
        let python = repositoryRoot.appendingPathComponent(".venv/bin/python")
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import json, sys, pronouncing; print(json.dumps({w: pronouncing.rhymes(w) for w in sys.argv[1:]}))"] + words
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let reference = try JSONDecoder().decode([String: [String]].self, from: data)
        for word in words {
            // pronouncing keeps `# comments` inside 22 entries' phones, which moves those entries only.
            let ours = Set(sharedEngine.perfectRhymes(of: word)), theirs = Set(reference[word] ?? [])
            #expect(ours.symmetricDifference(theirs).isSubset(of: sharedEngine.dictionary.commented),
                    "\(word): only ours \(ours.subtracting(theirs).sorted().prefix(5)), only theirs \(theirs.subtracting(ours).sorted().prefix(5))")
            #expect(ours.count >= theirs.count - 2)
        }
    }
}

@Suite("Word ranks")
struct WordRankTests {
    @Test("the bootstrap's word list ranks common words first, and rhymes come in that order")
    func ranks() throws {
        let dictionary = sharedEngine.dictionary
        #expect(dictionary.rankedCount > 40_000)
        #expect((dictionary.rank(of: "the") ?? Int.max) < 5)
        #expect((dictionary.rank(of: "night") ?? Int.max) < (dictionary.rank(of: "lyme") ?? Int.max))
        let perfect = sharedEngine.perfectRhymes(of: "time")
        let order = perfect.map { dictionary.rank(of: $0) ?? Int.max }
        #expect(order == order.sorted())
        #expect(Array(perfect.prefix(3)).allSatisfy { (dictionary.rank(of: $0) ?? Int.max) < 10_000 }, "\(perfect.prefix(3))")
    }
}

@Suite("Lyrics analysis")
struct LyricsAnalysisTests {
    @Test("scheme letters per stanza, groups across the text, syllables per line")
    func schemes() throws {
        let lyrics = """
        I walked alone beneath the night,
        The river running cold and deep,
        I followed every distant light,
        And promised I would never sleep.

        Tomorrow brings another time,
        Another chance to start again,
        Tomorrow every word will rhyme,
        I'll sing it softly now and then.
        """
        let analysis = sharedEngine.analyze(lyrics)
        #expect(analysis.lines.map(\.scheme) == ["A", "B", "A", "B", nil, "A", "B", "A", "B"])
        #expect(analysis.lines[0].syllables == 8 && analysis.lines[4].syllables == 0)
        let night = try #require(analysis.groups.first { $0.occurrences.contains { $0.word == "night" } })
        #expect(night.type == "end" && night.key == "AY1 T" && night.occurrences.map(\.line) == [0, 2])
        let first = try #require(night.occurrences.first)
        #expect(first.start == 27 && first.end == 32)   // "night" without the comma
        let again = try #require(analysis.groups.first { $0.occurrences.contains { $0.word == "again" } })
        #expect(again.occurrences.map(\.word) == ["again", "then"])
        #expect(Set(analysis.groups.map(\.colorIndex)).count == analysis.groups.count)
        #expect(analysis.groups.map(\.id) == Array(1...analysis.groups.count))
    }

    @Test("slant rhymes form near groups, or join a group they nearly rhyme with")
    func nearGroups() throws {
        let analysis = sharedEngine.analyze("""
        Give me one more time
        You were never mine

        The stars in the sky
        They rhyme with a lie
        I'm heading for home
        But not on my own

        We sang in the sun
        Until we were done
        And then there were some
        """)
        #expect(analysis.lines.map(\.scheme) == ["A", "A", nil, "A", "A", "B", "B", nil, "A", "A", "A"])
        func group(_ word: String) throws -> LyricsAnalysis.Group {
            try #require(analysis.groups.first { $0.occurrences.contains { $0.word == word } }, "\(word)")
        }
        #expect(try group("time").type == "near" && group("time").occurrences.map(\.word) == ["time", "mine"])
        #expect(try group("sky").type == "end" && group("sky").occurrences.map(\.word) == ["sky", "lie"])
        #expect(try group("home").type == "near" && group("home").occurrences.map(\.word) == ["home", "own"])
        let sun = try group("sun")
        #expect(sun.type == "end" && sun.occurrences.map(\.type) == ["end", "end", "near"])
    }

    @Test("offsets count UTF-16 units as the browser does, and odd lines do not break anything")
    func offsets() {
        let analysis = sharedEngine.analyze("🌙 under the moon\n🌙🌙 over the dune\n...\n   \nzzqxv blorp")
        let occurrences = analysis.groups.flatMap(\.occurrences)
        #expect(occurrences.map(\.start) == [13, 14])   // 🌙 is two UTF-16 units
        #expect(analysis.lines[2].scheme == nil && analysis.lines[3].scheme == nil && analysis.lines[4].scheme == "A")
        #expect(analysis.lines[4].syllables == 2)   // estimated: zzqxv 1, blorp 1
        #expect(sharedEngine.analyze("").lines.count == 1)
    }
}

/// Suggestions with the caret at the end of the text.
func suggest(_ text: String) -> RhymeSuggestions {
    sharedEngine.suggestions(for: text, caret: text.utf16.count)
}

@Suite("Rhyme suggestions")
struct SuggestionTests {
    @Test("the target comes from the open ending of recent lines: couplets, ABAB, and a closed couplet")
    func targets() {
        #expect(suggest("I walked alone beneath the night\n").target == .init(word: "night", line: 0))
        #expect(suggest("I walked alone beneath the night\nThe river running cold and deep\n").target?.word == "night")
        #expect(suggest("I walked alone beneath the night\nThe river running cold and deep\nI followed every distant light\n").target?.word == "deep")
        #expect(suggest("Under the moon\nOver the dune\n").target == nil)
        // A new stanza starts afresh.
        #expect(suggest("Under the moon\n\nWe sang in the sun\n").target?.word == "sun")
        #expect(suggest("").target == nil && suggest("").suggestions.isEmpty)
    }

    @Test("perfect rhymes first, common words first, at most 50, never the target")
    func ranking() throws {
        let result = suggest("I walked alone beneath the night\n")
        #expect(result.suggestions.count == RhymeSuggestions.limit)
        #expect(!result.suggestions.contains { $0.word == "night" })
        let firstNear = result.suggestions.firstIndex { $0.type == "near" } ?? result.suggestions.count
        #expect(result.suggestions[..<firstNear].allSatisfy { $0.type == "perfect" })
        #expect(Array(result.suggestions.prefix(5).map(\.word)).contains("light"))
    }

    @Test("a half-typed word narrows the list and is what a suggestion replaces")
    func partialWord() {
        let text = "I walked alone beneath the night\nAnd held on to the fli"
        let result = sharedEngine.suggestions(for: text, caret: text.utf16.count)
        #expect(!result.suggestions.isEmpty && result.suggestions.allSatisfy { $0.word.hasPrefix("fli") })
        #expect(result.suggestions.first?.word == "flight")
        #expect(result.replaceStart == text.utf16.count - 3 && result.replaceEnd == text.utf16.count)
        // The caret in the middle of the text: only the lines above count.
        let middle = sharedEngine.suggestions(for: "Under the moon\n\nlater lines", caret: 15)
        #expect(middle.target?.word == "moon" && middle.replaceStart == 15)
    }
}


@Suite("Words the dictionary lacks")
struct GuessedWordTests {
    /// The same dictionary, with eSpeak NG's letter-to-sound for the rest.
    static let engine = RhymeEngine(dictionary: sharedEngine.dictionary, guess: ESpeakPhonemes.arpabet(for:))

    @Test("names, slang and invented words get a guessed pronunciation and take part in rhymes")
    func guessed() throws {
        let yeet = try #require(Self.engine.lookup("Yeet!"))
        #expect(yeet.guessed && yeet.word == "yeet" && yeet.pronunciations.map(\.arpabet) == ["Y IY1 T"])
        #expect(Self.engine.perfectRhymes(of: "yeet").contains("street"))
        #expect(try #require(Self.engine.lookup("night")).guessed == false)
        #expect(Self.engine.lookup("...") == nil)
        let analysis = Self.engine.analyze("We danced until the blorp\nAnd dreamed of a distant dorp")
        #expect(analysis.lines.map(\.scheme) == ["A", "A"])
        #expect(analysis.groups.first?.occurrences.map(\.word) == ["blorp", "dorp"])
        #expect(analysis.groups.first?.occurrences.map(\.guessed) == [true, true])
    }
}

@Suite("Rhyme schemes and symmetry")
struct SchemeFixtureTests {
    @Test("fixture stanzas: ABAB, AABB, ABBA and free verse", arguments: [
        ("The lantern glows against the night\nThe kettle hums a quiet tune\nThe window frames a silver light\nThe garden sleeps beneath the moon", "ABAB"),
        ("We walked along the shore\nAnd listened to the roar\nThe gulls were flying low\nAbove the undertow", "AABB"),
        ("I wake before the day\nThe house is still and grey\nI wander on my way\nThe morning finds its play", "AAAA"),
        ("I close my eyes at night\nThe city fades away\nAnd dreams come out to play\nUntil the morning light", "ABBA"),
        ("Coffee on the table\nA letter from my sister\nRain against the window\nNobody is calling", "ABCD"),
    ])
    func schemes(lyrics: String, expected: String) {
        let letters = sharedEngine.analyze(lyrics).lines.compactMap(\.scheme).joined()
        #expect(letters == expected, "\(lyrics)")
    }

    @Test("similarity is the same both ways", arguments: RhymeTests.labelled)
    func symmetric(a: String, b: String, expected: RhymeType?) throws {
        guard !a.contains(" "), !b.contains(" ") else { return }
        let first = try #require(sharedEngine.lookup(a)?.pronunciations), second = try #require(sharedEngine.lookup(b)?.pronunciations)
        for x in first {
            for y in second {
                #expect(abs(RhymeEngine.similarity(x, y) - RhymeEngine.similarity(y, x)) < 1e-12, "\(a)/\(b)")
            }
        }
        #expect(sharedEngine.rhymeType(a, b) == sharedEngine.rhymeType(b, a))
    }

    @Test("every pronunciation counts: read rhymes with both bed and seed")
    func multiplePronunciations() {
        #expect(sharedEngine.rhymeType("read", "bed") == .perfect)
        #expect(sharedEngine.rhymeType("read", "seed") == .perfect)
    }
}
