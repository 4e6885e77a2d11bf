import Foundation

/// How two words rhyme.
public enum RhymeType: String, Codable, Sendable, CaseIterable {
    /// Identical rhyming parts (the `pronouncing` library's definition).
    case perfect
    /// Slant rhyme: similarity at or above `RhymeEngine.nearThreshold`.
    case near
    /// The same word ending both lines (a refrain, or a poet's repeated word).
    case identical
    /// The final syllables rhyme, one of them unstressed: be / poetry, sing / wandering, and the
    /// old `-y` that rhymes with `eye` (sky / memory).
    case unstressed
    /// Spelled alike but said differently: love / move, come / home. Poets use them on purpose.
    case eye
}

/// Rhymes from the CMU Pronouncing Dictionary: lookup with forgiving normalization, perfect
/// rhymes, and near (slant) rhymes by a documented similarity.
public final class RhymeEngine: Sendable {
    /// The dictionary's flat index: words, pronunciations, ranks by use and rhyme groups.
    public let dictionary: PronouncingDictionary
    /// Letter-to-sound for words the dictionary lacks: a word → ARPAbet (`B L AO1 R P`).
    public let guess: (@Sendable (String) -> String?)?
    private let guesses = GuessCache()

    public init(dictionary: PronouncingDictionary, guess: (@Sendable (String) -> String?)? = nil) {
        self.dictionary = dictionary
        self.guess = guess
    }

    /// The engine on the dictionary and word list the bootstrap installed, through its cached index.
    public static func installed(cacheDirectory: URL, guess: (@Sendable (String) -> String?)? = nil) throws -> RhymeEngine {
        guard let source = PronouncingDictionary.locate() else { throw RhymesError.dictionaryMissing }
        let dictionary = try PronouncingDictionary.load(source: source, ranks: PronouncingDictionary.locateWordRanks(), cacheDirectory: cacheDirectory)
        return RhymeEngine(dictionary: dictionary, guess: guess)
    }

    // MARK: - Lookup

    /// A word as found in the dictionary, with the form that matched.
    public struct Lookup: Sendable, Equatable {
        public var word: String
        public var pronunciations: [Pronunciation]
        /// True when the pronunciation is a letter-to-sound guess, not the dictionary's.
        public var guessed = false
        /// The word's id in the dictionary; nil for a guessed word.
        var id: Int?
    }

    /// Finds a word the way a writer types it: any case, surrounding punctuation, curly
    /// apostrophes (don’t), possessives (river's, rivers'), hyphenated words by their last part.
    /// Words the dictionary lacks get a guessed pronunciation (when a `guess` is set).
    public func lookup(_ raw: String) -> Lookup? {
        if let id = dictionary.id(of: raw) ?? dictionary.id(of: raw.lowercased()) { return found(id) }
        let forms = Self.candidates(raw)
        if let id = forms.lazy.compactMap(dictionary.id(of:)).first { return found(id) }
        return unlistedLookup(forms)
    }

    /// A word the dictionary does not list in any of its typed `forms` (`candidates`), by its
    /// last form (the word as spoken): elided, a compound, else guessed.
    func unlistedLookup(_ forms: [String]) -> Lookup? {
        guard let spoken = forms.last else { return nil }
        if let id = elidedID(spoken) { return found(id) }
        return compoundLookup(spoken) ?? guessedLookup(spoken)
    }

    /// A word the dictionary lacks made of two common words (`lovingcup`, `womenfight`): said as
    /// its parts one after the other, so it rhymes as its last part does. The longest common last
    /// part wins.
    func compoundLookup(_ word: String) -> Lookup? {
        let letters = Array(word)
        guard letters.count >= 5, letters.count <= 40, letters.allSatisfy({ $0.isLetter && $0.isASCII }) else { return nil }
        func common(_ part: ArraySlice<Character>) -> Int? {
            guard let id = dictionary.id(of: String(part)), let rank = dictionary.rank(ofWord: id), rank < Self.commonWords else { return nil }
            return id
        }
        for split in 2...(letters.count - 3) {
            guard let first = common(letters[..<split]), let last = common(letters[split...]) else { continue }
            let phones = dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: first).lowerBound)
                + dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: last).lowerBound)
            return Lookup(word: word, pronunciations: [phones])
        }
        return nil
    }

    /// A word written with a letter left out, as verse does (`lov'd`, `heav'n`, `pow'r`), and often
    /// without the apostrophe (`raisd`, `givn`): the dictionary's word with the `e` put back
    /// (`raised`, `given`, `power`), `-y'd` as `-ied` (`denied`), a doubled consonant before `-ed`
    /// (`dismissd` → `dismissed`), or the few poetic contractions the dictionary lacks.
    func elidedID(_ word: String) -> Int? {
        let letters = word.replacingOccurrences(of: "'", with: "")
        guard letters.count >= 3, letters.allSatisfy(\.isLetter) else { return nil }
        if let full = Self.contractions[letters] { return dictionary.id(of: full) }
        var forms: [String] = []
        let last = letters.last!
        if "dnrt".contains(last) { forms.append(letters.dropLast() + "e" + String(last)) }
        if letters.hasSuffix("yd") { forms.append(letters.dropLast(2) + "ied") }
        if letters.hasSuffix("d") { forms.append(letters.dropLast() + "ed") }
        if letters.hasSuffix("st") { forms.append(letters.dropLast(2) + "ssed") }
        return forms.lazy.compactMap(dictionary.id(of:)).first
    }

    /// Poetic contractions the dictionary lacks, by their letters without the apostrophe, and a
    /// word said the same: o'er as or, e'er as air, neer as ne'er.
    static let contractions: [String: String] = ["oer": "or", "eer": "air", "neer": "ne'er"]

    /// A word the dictionary lacks (as spoken: the last of its `candidates`), with its guessed
    /// pronunciation (nil without a `guess`).
    func guessedLookup(_ word: String) -> Lookup? {
        guard let guess, word.count <= 40,
              word.allSatisfy({ $0.isLetter || $0 == "'" }), word.contains(where: \.isLetter) else { return nil }
        let phones = guesses.value(for: word) { guess(word).flatMap { Pronunciation(arpabet: $0) } }
        return phones.map { Lookup(word: word, pronunciations: [$0], guessed: true) }
    }

    /// The dictionary's id for a typed word (as `lookup` finds it, without guessing).
    func dictionaryID(_ raw: String) -> Int? {
        if let id = dictionary.id(of: raw) { return id }
        if let id = dictionary.id(of: raw.lowercased()) { return id }
        return Self.candidates(raw).lazy.compactMap(dictionary.id(of:)).first
    }

    private func found(_ id: Int) -> Lookup {
        Lookup(word: dictionary.word(at: id), pronunciations: dictionary.pronunciations(ofWord: id), id: id)
    }

    /// Remembers letter-to-sound answers (nil ones too).
    final class GuessCache: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Pronunciation?] = [:]

        func value(for word: String, _ make: () -> Pronunciation?) -> Pronunciation? {
            lock.lock()
            if let known = values[word] { lock.unlock(); return known }
            lock.unlock()
            let made = make()
            lock.lock()
            values[word] = made
            lock.unlock()
            return made
        }
    }

    /// The forms to try for a typed word, most literal first.
    static func candidates(_ raw: String) -> [String] {
        var word = raw.replacingOccurrences(of: "\u{2019}", with: "'").replacingOccurrences(of: "\u{2018}", with: "'").lowercased()
        let keep: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "'" || $0 == "-" }
        while let first = word.first, !keep(first) || first == "-" { word.removeFirst() }
        while let last = word.last, !keep(last) || last == "-" { word.removeLast() }
        guard !word.isEmpty else { return [] }
        var forms = [word]
        let unquoted = word.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        if unquoted != word, !unquoted.isEmpty { forms.append(unquoted) }
        for form in forms {
            if form.hasSuffix("'s") { forms.append(String(form.dropLast(2))) }
            if form.hasSuffix("s'") { forms.append(String(form.dropLast())) }
        }
        if let dash = word.lastIndex(of: "-") {
            let last = String(word[word.index(after: dash)...])
            if !last.isEmpty { forms += candidates(last).filter { !forms.contains($0) } }
        }
        return forms
    }

    // MARK: - Perfect rhymes

    /// Words whose rhyming part equals one of `word`'s (any pronunciation), never the word itself;
    /// common words first.
    public func perfectRhymes(of raw: String) -> [String] {
        // A dictionary word needs no Lookup (its pronunciations are never built).
        if let id = dictionaryID(raw) { return perfectRhymes(groups: groups(ofWord: id), excluding: id) }
        guard let found = unlistedLookup(Self.candidates(raw)) else { return [] }
        return perfectRhymes(groups: groups(of: found), excluding: found.id ?? -1)
    }

    /// The rhyme groups of a word's pronunciations, each once.
    func groups(of found: Lookup) -> [Int] {
        if let id = found.id { return groups(ofWord: id) }
        var groups: [Int] = []
        for phones in found.pronunciations {
            if let group = dictionary.group(rhymingPart: phones.rhymingPart), !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    func groups(ofWord id: Int) -> [Int] {
        var groups: [Int] = []
        for pronunciation in dictionary.pronunciationIDs(ofWord: id) {
            let group = dictionary.group(ofPronunciation: pronunciation)
            if !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    /// Perfect rhymes as word ids, common first.
    func perfectRhymeIDs(of found: Lookup) -> [Int] {
        var ids: [Int] = []
        forEachPerfectRhyme(groups: groups(of: found), excluding: found.id ?? -1) { ids.append($0) }
        return ids
    }

    private func perfectRhymes(groups: [Int], excluding me: Int) -> [String] {
        var words: [String] = []
        words.reserveCapacity(groups.reduce(0) { $0 + dictionary.members(ofGroup: $1).count })
        forEachPerfectRhyme(groups: groups, excluding: me) { words.append(dictionary.word(at: $0)) }
        return words
    }

    /// Calls `body` with the members of the groups in use order, each word once, except `me`.
    private func forEachPerfectRhyme(groups: [Int], excluding me: Int, _ body: (Int) -> Void) {
        if groups.count == 1 {
            // Groups are stored in use order.
            for member in dictionary.members(ofGroup: groups[0]) where Int(member) != me { body(Int(member)) }
            return
        }
        // Several groups (a word with several rhyming parts): merge their use orders.
        var lists = groups.map { dictionary.members(ofGroup: $0)[...] }
        while true {
            var next: Int?
            for list in lists.indices {
                guard let head = lists[list].first else { continue }
                if let best = next, dictionary.useOrder(best) <= dictionary.useOrder(Int(head)) { continue }
                next = Int(head)
            }
            guard let id = next else { return }
            for list in lists.indices where lists[list].first.map(Int.init) == id { lists[list].removeFirst() }
            if id != me { body(id) }
        }
    }

    // MARK: - Near rhymes

    /// A pair scoring this much or more (and not perfect) is a near rhyme.
    public static let nearThreshold = 0.7

    /// Near rhymes of a word, best first (ties: common first), perfect rhymes left out.
    public func nearRhymes(of raw: String, limit: Int = 100) -> [(word: String, score: Double)] {
        guard let found = lookup(raw) else { return [] }
        return nearRhymeIDs(of: found, limit: limit).map { (dictionary.word(at: $0.id), $0.score) }
    }

    /// Near rhymes as word ids, best first (ties: common first); only ranked words when `rankedOnly`.
    func nearRhymeIDs(of found: Lookup, limit: Int, rankedOnly: Bool = false) -> [(id: Int, score: Double)] {
        var perfect = Set(perfectRhymeIDs(of: found))
        if let me = found.id { perfect.insert(me) }
        var best: [Int: Double] = [:]
        for phones in found.pronunciations {
            guard let vowel = phones.last(where: \.isVowel) else { continue }
            for bucket in 0..<Phone.vowelCount where Self.vowelSimilarity(vowel.base, bucket) > 0 {
                for pronunciation in dictionary.pronunciations(endingOnVowel: bucket) {
                    let word = dictionary.word(ofPronunciation: Int(pronunciation))
                    guard !perfect.contains(word), !rankedOnly || dictionary.rank(ofWord: word) != nil else { continue }
                    let score = Self.similarity(phones, dictionary.phones(ofPronunciation: Int(pronunciation)))
                    if score >= Self.nearThreshold, score > best[word] ?? 0 { best[word] = score }
                }
            }
        }
        return best.map { (id: $0.key, score: $0.value) }.sorted { a, b in
            a.score != b.score ? a.score > b.score : dictionary.useOrder(a.id) < dictionary.useOrder(b.id)
        }.prefix(limit).map { $0 }
    }

    /// How two pronunciations rhyme, or nil.
    public static func rhymeType(_ a: Pronunciation, _ b: Pronunciation) -> RhymeType? {
        if a.rhymingPart == b.rhymingPart { return .perfect }
        return similarity(a, b) >= nearThreshold ? .near : nil
    }

    /// How two words rhyme (any of their pronunciations), or nil; nil also for unknown words.
    public func rhymeType(_ a: String, _ b: String) -> RhymeType? {
        guard let first = lookup(a), let second = lookup(b) else { return nil }
        return Self.rhymeType(among: first.pronunciations, second.pronunciations)
    }

    static func rhymeType(among first: [Pronunciation], _ second: [Pronunciation]) -> RhymeType? {
        var found: RhymeType?
        for a in first {
            for b in second {
                switch rhymeType(a, b) {
                case .perfect: return .perfect
                case nil: break
                default: found = .near
                }
            }
        }
        return found
    }

    /// Similarity of two pronunciations' endings, 0…1 (1 for a perfect rhyme).
    ///
    /// Both are cut into syllable units from the end — a vowel and the consonants after it — and
    /// up to three are compared: the last counts fully, the one before 0.6, the one before that
    /// 0.36. Units take part as far as the longer rhyming part reaches (from its last stressed
    /// vowel). A unit scores half for its vowel (same vowel 1; close vowels such as IH/IY or
    /// AA/AO 0.6; two unstressed vowels at least 0.7) and half for its consonants (see
    /// `codaSimilarity`), times 0.9 when one vowel is stressed and the other not. A unit one word
    /// lacks scores 0. The result is at most the score of the unit where the longer rhyming part
    /// starts (its stressed syllable): a rhyme needs that syllable close (sister/window is not
    /// one, however alike their unstressed endings). So: same vowel with similar final consonants
    /// (time/mine 0.85), assonance and consonance across syllables (orange/door hinge 0.75), a
    /// matching stress pattern.
    public static func similarity(_ a: Pronunciation, _ b: Pronunciation) -> Double {
        if a.rhymingPart == b.rhymingPart { return 1 }
        return similarity(units(a), units(b), reach: max(a.rhymingPart.syllableCount, b.rhymingPart.syllableCount, 1))
    }

    /// `similarity` of two pronunciations already cut into units (`units`), whose rhyming parts
    /// differ; `reach` is the longer rhyming part's syllable count (at least 1).
    static func similarity(_ unitsA: [(vowel: Phone, coda: [Phone])], _ unitsB: [(vowel: Phone, coda: [Phone])], reach: Int) -> Double {
        let compared = min(reach, 3)
        var total = 0.0, weights = 0.0
        var stressedUnit = 1.0
        for position in 0..<compared {
            let weight = pow(0.6, Double(position))
            weights += weight
            guard position < unitsA.count, position < unitsB.count else {
                if position == reach - 1 { stressedUnit = 0 }
                continue
            }
            let ua = unitsA[unitsA.count - 1 - position], ub = unitsB[unitsB.count - 1 - position]
            var vowel = vowelSimilarity(ua.vowel.base, ub.vowel.base)
            if ua.vowel.stress == 0 && ub.vowel.stress == 0 { vowel = max(vowel, 0.7) }
            var score = 0.5 * vowel + 0.5 * codaSimilarity(ua.coda, ub.coda)
            if ua.vowel.isStressed != ub.vowel.isStressed { score *= 0.9 }
            total += weight * score
            if position == reach - 1 { stressedUnit = score }
        }
        // The stressed syllable carries a rhyme: however alike the endings, it must be close too.
        return weights > 0 ? min(total / weights, stressedUnit) : 0
    }

    /// (vowel, consonants after it) from the first vowel on; leading consonants are dropped.
    static func units(_ phones: Pronunciation) -> [(vowel: Phone, coda: [Phone])] {
        var units: [(vowel: Phone, coda: [Phone])] = []
        for phone in phones {
            if phone.isVowel { units.append((phone, [])) } else if !units.isEmpty { units[units.count - 1].coda.append(phone) }
        }
        return units
    }

    /// Vowels that sound close: 1 for the same vowel, 0.6 for neighbours, else 0.
    static func vowelSimilarity(_ a: Int, _ b: Int) -> Double {
        if a == b { return 1 }
        let pair = Set([Phone.symbols[a], Phone.symbols[b]])
        return closeVowels.contains(pair) ? 0.6 : 0
    }

    static let closeVowels: Set<Set<String>> = [
        ["IH", "IY"], ["EH", "AE"], ["EH", "EY"], ["EH", "IH"], ["AH", "UH"], ["AH", "IH"], ["AH", "ER"], ["AH", "AA"],
        ["AA", "AO"], ["AO", "OW"], ["UW", "UH"], ["AY", "AA"], ["AW", "AA"], ["OY", "AO"], ["EY", "IY"], ["OW", "UW"],
    ]

    /// Consonants after a vowel, compared from the end (the last sounds matter most): an edit
    /// distance where a substitution costs 1 − `consonantSimilarity`, normalized by the longer
    /// length. Both empty: 1; one empty (open against closed syllable): 0.3.
    static func codaSimilarity(_ a: [Phone], _ b: [Phone]) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        if a.isEmpty || b.isEmpty { return 0.3 }
        let x = Array(a.reversed()), y = Array(b.reversed())
        var previous = Array(0...y.count).map(Double.init)
        for i in 1...x.count {
            var row = [Double(i)] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                let substitution = previous[j - 1] + (1 - consonantSimilarity(x[i - 1].base, y[j - 1].base))
                row[j] = min(substitution, previous[j] + 1, row[j - 1] + 1)
            }
            previous = row
        }
        return max(0, 1 - previous[y.count] / Double(max(x.count, y.count)))
    }

    /// 1 for the same consonant; 0.7 for a voicing pair (T/D) or two nasals; 0.5 for two
    /// voiceless stops or close fricatives; 0.4 for L/R; else 0.
    static func consonantSimilarity(_ a: Int, _ b: Int) -> Double {
        if a == b { return 1 }
        let pair = Set([Phone.symbols[a], Phone.symbols[b]])
        if strongConsonants.contains(pair) { return 0.7 }
        if weakConsonants.contains(pair) { return 0.5 }
        if pair == ["L", "R"] { return 0.4 }
        return 0
    }

    static let strongConsonants: Set<Set<String>> = [
        ["P", "B"], ["T", "D"], ["K", "G"], ["F", "V"], ["S", "Z"], ["SH", "ZH"], ["CH", "JH"], ["TH", "DH"],
        ["M", "N"], ["N", "NG"], ["M", "NG"],
    ]
    static let weakConsonants: Set<Set<String>> = [
        ["P", "T"], ["T", "K"], ["P", "K"], ["B", "D"], ["D", "G"], ["B", "G"], ["F", "TH"], ["S", "SH"], ["V", "DH"], ["Z", "ZH"],
        ["S", "TH"], ["CH", "SH"], ["JH", "ZH"],
    ]
}

/// A word's rhymes, as `reverie rhymes --json` and `GET /api/rhymes/{word}` give them.
public struct WordRhymes: Codable, Sendable, Equatable {
    public var word: String
    /// True when the word is not in the dictionary and its pronunciation was guessed.
    public var guessed: Bool
    public var perfect: [String]
    public var near: [String]
}

extension RhymeEngine {
    /// Perfect rhymes of a typed word, and near ones when asked; nil when it has nothing to pronounce.
    public func rhymes(of raw: String, near: Bool) -> WordRhymes? {
        guard let found = lookup(raw) else { return nil }
        return WordRhymes(word: found.word, guessed: found.guessed, perfect: perfectRhymes(of: found.word),
                          near: near ? nearRhymes(of: found.word).map(\.word) : [])
    }
}
