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
    /// Analyses lyrics: the last word of each line, rhyme groups over the whole text, scheme
    /// letters per stanza (stanzas are separated by blank lines), syllables per line.
    ///
    /// Endings that rhyme perfectly form `end` groups. An ending with no perfect partner joins
    /// the group it rhymes with slantwise (as a `near` occurrence), or forms a `near` group with
    /// other such endings.
    public func analyze(_ text: String) -> LyricsAnalysis {
        let rawLines = Self.lines(text)
        struct Ending {
            var line: Int
            var word: String
            var start: Int
            var end: Int
            var pronunciations: [Pronunciation]
            var guessed: Bool
        }
        var endings: [Ending] = []
        var syllables: [Int] = []
        var hasWords: [Bool] = []
        for (index, line) in rawLines.enumerated() {
            let words = Self.words(in: line)
            hasWords.append(!words.isEmpty)
            syllables.append(words.reduce(0) { $0 + syllableCount($1.word) })
            if let last = words.last, let found = lookup(last.word) {
                endings.append(Ending(line: index, word: last.word, start: last.start, end: last.end,
                                      pronunciations: found.pronunciations, guessed: found.guessed))
            }
        }

        // Perfect groups: endings sharing a rhyming part (any of their pronunciations).
        var groupOf = [Int?](repeating: nil, count: endings.count)   // ending → group index
        var members: [[(ending: Int, near: Bool)]] = []
        var kinds: [String] = []
        var byKey: [[UInt8]: [Int]] = [:]
        for (i, ending) in endings.enumerated() {
            for key in Set(ending.pronunciations.map { $0.rhymingPart.map(\.code) }) { byKey[key, default: []].append(i) }
        }
        for (i, ending) in endings.enumerated() where groupOf[i] == nil {
            var partners = Set<Int>()
            for key in Set(ending.pronunciations.map({ $0.rhymingPart.map(\.code) })) {
                for j in byKey[key] ?? [] where j > i && groupOf[j] == nil { partners.insert(j) }
            }
            guard !partners.isEmpty else { continue }
            let sorted = partners.sorted()
            members.append([(i, false)] + sorted.map { ($0, false) })
            kinds.append("end")
            for j in [i] + sorted { groupOf[j] = members.count - 1 }
        }
        // Endings left alone: join a group slantwise, or pair up slantwise.
        for i in endings.indices where groupOf[i] == nil {
            var best: (group: Int?, partner: Int?, score: Double) = (nil, nil, 0)
            for j in endings.indices where j != i {
                let score = endings[i].pronunciations.flatMap { a in endings[j].pronunciations.map { b in Self.similarity(a, b) } }.max() ?? 0
                guard score >= Self.nearThreshold, score > best.score else { continue }
                best = (groupOf[j], j, score)
            }
            guard let partner = best.partner else { continue }
            if let group = best.group {
                members[group].append((i, true))
                groupOf[i] = group
            } else {
                members.append([(partner, true), (i, true)])
                kinds.append("near")
                groupOf[partner] = members.count - 1
                groupOf[i] = members.count - 1
            }
        }

        // Groups numbered by where they first appear.
        let order = members.indices.sorted { (members[$0].map(\.ending).min() ?? 0) < (members[$1].map(\.ending).min() ?? 0) }
        var groups: [LyricsAnalysis.Group] = []
        var number = [Int: Int]()   // internal group → public id
        for (position, group) in order.enumerated() {
            number[group] = position + 1
            let sorted = members[group].sorted { $0.ending < $1.ending }
            let first = endings[sorted[0].ending]
            groups.append(.init(id: position + 1, type: kinds[group], key: first.pronunciations[0].rhymingPart.arpabet,
                                colorIndex: position % LyricsAnalysis.paletteSize,
                                occurrences: sorted.map { member in
                                    let ending = endings[member.ending]
                                    return .init(line: ending.line, start: ending.start, end: ending.end, word: ending.word,
                                                 type: member.near && kinds[group] == "end" ? "near" : kinds[group], guessed: ending.guessed)
                                }))
        }

        // Scheme letters, per stanza.
        var letters = [String?](repeating: nil, count: rawLines.count)
        let endingOfLine = Dictionary(uniqueKeysWithValues: endings.enumerated().map { ($1.line, $0) })
        var stanzaLetters: [String: String] = [:]   // group id or "line n" → letter
        for (index, line) in rawLines.enumerated() {
            if !hasWords[index] && line.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
                stanzaLetters = [:]
                continue
            }
            if !hasWords[index] { continue }   // "..." has no letter, but does not end the stanza
            let ending = endingOfLine[index]
            let key = ending.flatMap { groupOf[$0] }.map { "group \(number[$0]!)" } ?? "line \(index)"
            if let letter = stanzaLetters[key] {
                letters[index] = letter
            } else {
                let letter = Self.letter(stanzaLetters.count)
                stanzaLetters[key] = letter
                letters[index] = letter
            }
        }
        let lines = rawLines.enumerated().map { index, text in
            LyricsAnalysis.Line(text: text, scheme: letters[index], syllables: syllables[index])
        }
        return LyricsAnalysis(lines: lines, groups: groups)
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

    /// Syllables of a word: the dictionary's first pronunciation, else an estimate from spelling
    /// (vowel groups, a silent final e), at least 1.
    public func syllableCount(_ word: String) -> Int {
        if let id = dictionaryID(word) { return dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: id).lowerBound).syllableCount }
        if let found = guessedLookup(word) { return found.pronunciations[0].syllableCount }
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
