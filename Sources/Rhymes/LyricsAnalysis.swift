import Foundation

/// What the editor shows for a lyrics text: per line its rhyme-scheme letter and syllables, and
/// the groups of rhyming line endings with where each word sits.
///
/// Offsets are UTF-16 code units from the start of the line, as a browser's text editor counts.
public struct LyricsAnalysis: Codable, Sendable, Equatable {
    public struct Line: Codable, Sendable, Equatable {
        public var text: String
        /// A, B, C… restarting in each stanza; nil for a blank line (or one without words).
        public var scheme: String?
        /// Syllables in the line (dictionary counts; a spelling estimate for unknown words).
        public var syllables: Int
    }

    public struct Occurrence: Codable, Sendable, Equatable {
        /// 0-based line.
        public var line: Int
        public var start: Int
        public var end: Int
        public var word: String
        /// `end` for a perfect rhyme with the group, `near` for a slant one.
        public var type: String
        /// How the word rhymes with its group, most exactly: `perfect`, `identical` (the same
        /// word), `near`, `unstressed` (on a final unstressed syllable) or `eye` (spelled alike).
        public var rhyme: RhymeType
        /// The word is not in the dictionary; its pronunciation was guessed.
        public var guessed: Bool
    }

    public struct Group: Codable, Sendable, Equatable {
        public var id: Int
        /// `end`: the line endings rhyme perfectly; `near`: they rhyme only slantwise.
        public var type: String
        /// The rhyming part they share (of the first word), in ARPAbet.
        public var key: String
        /// Which highlight colour of the theme's palette (0…5).
        public var colorIndex: Int
        public var occurrences: [Occurrence]
    }

    public var lines: [Line]
    public var groups: [Group]

    /// Colours in each theme's highlight palette.
    public static let paletteSize = 6
}

extension RhymeEngine {
    /// Analyses lyrics: the last word of each line, each stanza's rhyme scheme (stanzas are
    /// separated by blank lines), rhyme groups over the whole text, syllables per line.
    ///
    /// A stanza's letters are decided inside the stanza (`StanzaScheme`); pairs of words that
    /// rhyme in one stanza count for more in the others (a poet who rhymes join / line once
    /// means it the next time), and the shape most stanzas of a length took counts for more in
    /// the others of that length (a poem in couplets keeps its couplets where a rhyme is weak). The stanzas' groups are then joined across the text where they
    /// share a rhyming part (a chorus that rhymes with a verse), and lines left alone in their
    /// stanza join a group elsewhere that they rhyme with; this never changes a stanza's
    /// letters. Every step looks words up by key, so the cost grows with the text's length.
    public func analyze(_ text: String) -> LyricsAnalysis {
        let rawLines = Self.lines(text)
        var syllables: [Int] = []
        var spans: [(start: Int, end: Int)?] = []
        var endings: [LineEnding?] = []
        var hasWords: [Bool] = []
        for line in rawLines {
            let words = Self.words(in: line)
            hasWords.append(!words.isEmpty)
            // The last word is looked up once, for its ending and its syllables.
            let ending = words.last.map { lineEnding($0.word) }
            syllables.append(words.dropLast().reduce(0) { $0 + syllableCount($1.word) }
                             + (ending.map { Self.syllableCount($0.spelledAsTyped, found: $0.found) } ?? 0))
            spans.append(words.last.map { ($0.start, $0.end) })
            endings.append(ending)
        }

        // Stanzas: the lines with words between blank lines ("..." has no letter but does not end one).
        var stanzas: [[Int]] = [[]]
        for (index, line) in rawLines.enumerated() {
            if hasWords[index] {
                stanzas[stanzas.count - 1].append(index)
            } else if line.unicodeScalars.allSatisfy(\.properties.isWhitespace), !stanzas[stanzas.count - 1].isEmpty {
                stanzas.append([])
            }
        }
        if stanzas.last?.isEmpty == true { stanzas.removeLast() }

        // Each stanza's pairs compared once. First each stanza alone; then again, where a pair it
        // could rhyme was rhymed by another stanza, with that pair counting for more.
        let pairs = stanzas.map { lines in
            StanzaPairs(lines.map { line in endings[line].flatMap { $0.pronunciations.isEmpty && $0.spelling.isEmpty ? nil : $0 } })
        }
        var labels = pairs.map { StanzaScheme.groups(of: $0) }
        // The text's own shape by stanza length: the grouping most of its stanzas of that length
        // took (at least two of them, and half).
        // (In the order the shapes first come, so a tie goes the same way every time: the first.)
        var shapeCounts: [[Int]: Int] = [:], lengthCounts: [Int: Int] = [:], shapesInOrder: [[Int]] = []
        for stanzaLabels in labels where stanzaLabels.count >= 3 {
            let shape = SchemeShapes.canonical(stanzaLabels)
            if shapeCounts[shape] == nil { shapesInOrder.append(shape) }
            shapeCounts[shape, default: 0] += 1
            lengthCounts[stanzaLabels.count, default: 0] += 1
        }
        var textShapes: [Int: [Int]] = [:]
        for shape in shapesInOrder {
            let count = shapeCounts[shape]!
            guard count >= 2, 2 * count >= lengthCounts[shape.count]! else { continue }
            if let kept = textShapes[shape.count], shapeCounts[kept]! >= count { continue }
            textShapes[shape.count] = shape
        }
        let linked = stanzas.indices.map { Self.linkedPairs(stanzas[$0], labels[$0], endings) }
        var rhymedPairs: [WordPair: Int] = [:]
        for pair in linked.joined() { rhymedPairs[pair, default: 0] += 1 }
        for (stanza, lines) in stanzas.enumerated() {
            var own: [WordPair: Int] = [:]
            for pair in linked[stanza] { own[pair, default: 0] += 1 }
            var elsewhere = Set<WordPair>()
            for second in lines.indices {
                for first in max(0, second - StanzaScheme.window)..<second {
                    guard let a = endings[lines[first]], let b = endings[lines[second]], a.spelled != b.spelled else { continue }
                    let pair = WordPair(a.spelled, b.spelled)
                    if (rhymedPairs[pair] ?? 0) > (own[pair] ?? 0) { elsewhere.insert(pair) }
                }
            }
            let textShape = textShapes[lines.count].flatMap { $0 == SchemeShapes.canonical(labels[stanza]) ? nil : $0 }
            guard !elsewhere.isEmpty || textShape != nil else { continue }
            labels[stanza] = StanzaScheme.groups(of: pairs[stanza], pairBonus: { first, second in
                guard let a = endings[lines[first]], let b = endings[lines[second]] else { return 0 }
                return elsewhere.contains(WordPair(a.spelled, b.spelled)) ? StanzaScheme.repeatedPairBonus : 0
            }, textShape: textShape)
        }

        // Letters per stanza; the stanza's groups of two or more lines.
        var letters = [String?](repeating: nil, count: rawLines.count)
        var stanzaGroups: [StanzaGroup] = []
        for (stanza, lines) in stanzas.enumerated() {
            var slots: [Int: [Int]] = [:]
            for (slot, line) in lines.enumerated() {
                letters[line] = Self.letter(labels[stanza][slot])
                slots[labels[stanza][slot], default: []].append(slot)
            }
            for label in slots.keys.sorted() where slots[label]!.count > 1 {
                stanzaGroups.append(StanzaGroup(lines: slots[label]!.map { lines[$0] }, rhymes: Self.strongestRhymes(slots[label]!, pairs[stanza])))
            }
        }
        return LyricsAnalysis(lines: rawLines.enumerated().map { index, text in
            LyricsAnalysis.Line(text: text, scheme: letters[index], syllables: syllables[index])
        }, groups: textGroups(stanzaGroups, stanzas: stanzas, endings: endings, spans: spans))
    }

    /// A stanza's group: its lines, and how each rhymes with the others at its strongest.
    struct StanzaGroup {
        var lines: [Int]
        var rhymes: [RhymeType]
    }

    /// For each line of a group (its slots in the stanza), the strongest way it rhymes with its
    /// neighbours in the group — a couple either side, so a long monorhyme costs no more per line
    /// than a couplet.
    static func strongestRhymes(_ slots: [Int], _ pairs: StanzaPairs) -> [RhymeType] {
        slots.indices.map { index in
            var best: RhymeType = .near
            var bestRank = Int.max
            for other in max(0, index - 2)...min(slots.count - 1, index + 2) where other != index {
                let (first, second) = (min(slots[index], slots[other]), max(slots[index], slots[other]))
                guard let type = pairs.pair(first, second)?.type, let rank = strength.firstIndex(of: type), rank < bestRank else { continue }
                (best, bestRank) = (type, rank)
            }
            return best
        }
    }

    /// Two words, in either order.
    struct WordPair: Hashable {
        var first: String, second: String
        init(_ a: String, _ b: String) { (first, second) = a < b ? (a, b) : (b, a) }
    }

    /// The pairs of different words that share a group in a stanza's labels.
    static func linkedPairs(_ lines: [Int], _ labels: [Int], _ endings: [LineEnding?]) -> [WordPair] {
        var pairs: [WordPair] = []
        for second in lines.indices {
            for first in max(0, second - StanzaScheme.window)..<second where labels[first] == labels[second] {
                guard let a = endings[lines[first]], let b = endings[lines[second]], a.spelled != b.spelled else { continue }
                pairs.append(WordPair(a.spelled, b.spelled))
            }
        }
        return pairs
    }

    /// The text's rhyme groups: each stanza's groups, joined where they share a rhyming part; a
    /// line alone in its stanza joins a group it rhymes with perfectly, else one whose stressed
    /// vowel it shares and nearly rhymes with, else pairs with another such line.
    private func textGroups(_ stanzaGroups: [StanzaGroup], stanzas: [[Int]], endings: [LineEnding?],
                            spans: [(start: Int, end: Int)?]) -> [LyricsAnalysis.Group] {
        // Union-find over stanza groups, joined by rhyming part.
        var parent = Array(stanzaGroups.indices)
        func root(_ node: Int) -> Int {
            var node = node
            while parent[node] != node { parent[node] = parent[parent[node]]; node = parent[node] }
            return node
        }
        var owner: [[UInt8]: Int] = [:]
        var grouped = Set<Int>()
        for (group, stanzaGroup) in stanzaGroups.enumerated() {
            for line in stanzaGroup.lines {
                grouped.insert(line)
                for part in endings[line]?.parts ?? [] {
                    if let other = owner[part] { parent[root(group)] = root(other) } else { owner[part] = group }
                }
            }
        }
        var members: [Int: [(line: Int, rhyme: RhymeType)]] = [:]
        for (group, stanzaGroup) in stanzaGroups.enumerated() {
            members[root(group), default: []] += zip(stanzaGroup.lines, stanzaGroup.rhymes).map { ($0, $1) }
        }
        // Lines alone in their stanza.
        var nearOwner: [NearBucket: Int] = [:]
        for group in members.keys.sorted() {   // in a fixed order, so the same text always gives the same groups
            for member in members[group]! {
                for bucket in endings[member.line].map(nearBuckets) ?? [] where nearOwner[bucket] == nil { nearOwner[bucket] = group }
            }
        }
        var nextGroup = stanzaGroups.count
        for line in stanzas.joined() where !grouped.contains(line) {
            guard let ending = endings[line], !ending.pronunciations.isEmpty else { continue }
            if let group = ending.parts.lazy.compactMap({ owner[$0] }).first.map(root) {
                members[group]!.append((line, .perfect))
                continue
            }
            var joined = false
            for bucket in nearBuckets(ending) {
                guard let group = nearOwner[bucket], let first = members[group]?.first, let other = endings[first.line] else { continue }
                let pair = EndingPair(ending, other)
                guard pair.type != nil, pair.similarity >= RhymeEngine.nearThreshold else { continue }
                members[group]!.append((line, .near))
                joined = true
                break
            }
            guard !joined else { continue }
            let group = nextGroup
            nextGroup += 1
            members[group] = [(line, .near)]
            parent.append(group)
            for part in ending.parts where owner[part] == nil { owner[part] = group }
            for bucket in nearBuckets(ending) where nearOwner[bucket] == nil { nearOwner[bucket] = group }
        }

        // Groups of two or more, numbered by where they first appear.
        let kept = members.values.filter { $0.count > 1 }.map { $0.sorted { $0.line < $1.line } }.sorted { $0[0].line < $1[0].line }
        return kept.enumerated().map { position, occurrences in
            let perfect = occurrences.contains { $0.rhyme == .perfect || $0.rhyme == .identical }
            let first = endings[occurrences[0].line]!
            return LyricsAnalysis.Group(
                id: position + 1, type: perfect ? "end" : "near",
                key: first.pronunciations.first.map { $0.rhymingPart.arpabet } ?? "",
                colorIndex: position % LyricsAnalysis.paletteSize,
                occurrences: occurrences.map { member in
                    let ending = endings[member.line]!, span = spans[member.line]!
                    let exact = member.rhyme == .perfect || member.rhyme == .identical
                    return .init(line: member.line, start: span.start, end: span.end, word: ending.spelledAsTyped,
                                 type: perfect && exact ? "end" : "near", rhyme: member.rhyme, guessed: ending.guessed)
                })
        }
    }

    /// Rhyme types from the strongest a line can have with its group to the weakest.
    static let strength: [RhymeType] = [.perfect, .identical, .near, .unstressed, .eye]

    /// Where a near rhyme of an ending is looked for across the text: its stressed vowel and
    /// its last consonant's class (or none), for each pronunciation.
    struct NearBucket: Hashable {
        var vowel: Int
        var closing: Int
    }

    func nearBuckets(_ ending: LineEnding) -> [NearBucket] {
        var buckets: [NearBucket] = []
        for part in ending.pronunciations.map(\.rhymingPart) {
            guard let vowel = part.first(where: \.isVowel) else { continue }
            let last = part.last.flatMap { $0.isVowel ? nil : Self.consonantClass($0.base) } ?? -1
            let bucket = NearBucket(vowel: vowel.base, closing: last)
            if !buckets.contains(bucket) { buckets.append(bucket) }
        }
        return buckets
    }

    /// Consonants grouped as near rhymes hear them: stops, nasals, sibilants and other fricatives, liquids and the rest.
    static func consonantClass(_ base: Int) -> Int {
        switch Phone.symbols[base] {
        case "P", "B", "T", "D", "K", "G", "CH", "JH": 0
        case "M", "N", "NG": 1
        case "S", "Z", "SH", "ZH": 2
        case "F", "V", "TH", "DH", "HH": 3
        case "L", "R": 4
        default: 5
        }
    }

    /// A line's last word as the scheme compares it: its pronunciations (guessed when the
    /// dictionary lacks it) and its spelling.
    func lineEnding(_ typed: String) -> LineEnding {
        LineEnding(spelled: Self.candidates(typed).first ?? typed.lowercased(), typed: typed, found: lookup(typed))
    }

    /// Lines split at line feeds (a carriage return before one is dropped).
    static func lines(_ text: String) -> [String] {
        text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { bytes in
            String(decoding: bytes.last == 13 ? bytes.dropLast() : bytes, as: UTF8.self)
        }
    }

    /// A, B, … Z, AA, AB, …
    static func letter(_ index: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return index < 26 ? String(alphabet[index]) : letter(index / 26 - 1) + String(alphabet[index % 26])
    }

    /// Words in a line with UTF-16 offsets: letters, digits (with the marks on them), inner
    /// apostrophes and hyphens. Reads Unicode scalars, deciding ASCII ones without a table.
    static func words(in line: String) -> [(word: String, start: Int, end: Int)] {
        var result: [(String, Int, Int)] = []
        var current = String.UnicodeScalarView()
        var start = 0
        var offset = 0
        var trailing = 0   // UTF-16 length of the apostrophes and hyphens that end `current`
        func finish() {
            guard !current.isEmpty else { return }
            var word = current
            if trailing > 0 {
                while let last = word.last, last == "'" || last == "\u{2019}" || last == "-" { word.removeLast() }
            }
            if !word.isEmpty { result.append((String(word), start, offset - trailing)) }
            current = String.UnicodeScalarView()
            trailing = 0
        }
        for scalar in line.unicodeScalars {
            let joiner = scalar == "'" || scalar == "\u{2019}" || scalar == "-"
            if isWordScalar(scalar) || (!current.isEmpty && (joiner || isMark(scalar))) {
                if current.isEmpty { start = offset }
                current.append(scalar)
                trailing = joiner ? trailing + scalar.utf16.count : 0
            } else {
                finish()
            }
            offset += scalar.utf16.count
        }
        finish()
        return result
    }

    /// Letters and digits.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (value >= 0x61 && value <= 0x7A) || (value >= 0x41 && value <= 0x5A) || (value >= 0x30 && value <= 0x39)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// Combining marks, which belong to the letter before them.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Syllables of a word: the dictionary's first pronunciation (an elided or compound word's
    /// full form, a guessed one for a word it lacks), else an estimate from spelling (vowel groups,
    /// a silent final e), at least 1.
    public func syllableCount(_ word: String) -> Int {
        if let id = dictionaryID(word) { return dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: id).lowerBound).syllableCount }
        return Self.syllableCount(word, found: unlistedLookup(Self.candidates(word)))
    }

    /// Syllables of a word already looked up (`found`), or estimated from its spelling.
    static func syllableCount(_ word: String, found: Lookup?) -> Int {
        if let phones = found?.pronunciations.first { return phones.syllableCount }
        let letters = Array(word.lowercased().filter(\.isLetter))
        guard !letters.isEmpty else { return 0 }
        let vowels = Set("aeiouy")
        var count = 0
        var previousVowel = false
        for letter in letters {
            let vowel = vowels.contains(letter)
            if vowel && !previousVowel { count += 1 }
            previousVowel = vowel
        }
        if letters.count > 2, letters.last == "e", !vowels.contains(letters[letters.count - 2]), count > 1 { count -= 1 }
        return max(1, count)
    }
}
