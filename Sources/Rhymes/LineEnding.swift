import Foundation

/// A line's last word, ready to be compared with other endings: its pronunciations' rhyming
/// keys, syllable units and final syllables, and the rhyme its spelling makes — worked out once
/// per line rather than once per pair.
struct LineEnding: Sendable {
    /// The word as typed, in lower case, without surrounding punctuation (`love`, `o'er`).
    var spelled: String
    /// The word exactly as the line has it.
    var spelledAsTyped: String
    /// How the dictionary found it (nil when nothing could be pronounced).
    var found: RhymeEngine.Lookup?
    /// Each pronunciation's rhyming part as the ear compares endings (`rhymeKey`).
    var parts: [[UInt8]]
    /// Each pronunciation's syllable units (see `RhymeEngine.units`), for `RhymeEngine.similarity`.
    var units: [[(vowel: Phone, coda: [Phone])]]
    /// Each pronunciation's rhyming-part syllable count, for `RhymeEngine.similarity`.
    var reach: [Int]
    /// Each pronunciation's stressed vowel where its rhyming part starts, with the consonants
    /// after it; nil when the rhyming part has no stressed vowel.
    var stressedUnits: [(vowel: Phone, coda: [Phone])?]
    /// The rhyme the spelling makes (`ove` for love and move), or "" when it has none.
    var spelling: Substring

    /// The word as the dictionary found it; `spelled` when it was not found.
    var word: String { found?.word ?? spelled }
    var pronunciations: [Pronunciation] { found?.pronunciations ?? [] }
    /// The pronunciation was guessed by letter-to-sound rules.
    var guessed: Bool { found?.guessed ?? false }

    init(spelled: String, typed: String, found: RhymeEngine.Lookup?) {
        self.spelled = spelled
        spelledAsTyped = typed
        self.found = found
        let pronunciations = found?.pronunciations ?? []
        parts = pronunciations.map(Self.rhymeKey)
        units = pronunciations.map(RhymeEngine.units)
        reach = pronunciations.map { $0.rhymingPart.syllableCount }
        stressedUnits = pronunciations.map { phones in
            // An r-coloured vowel as a vowel and an R (turn as "tuhrn"), so it can meet scorn or star.
            RhymeEngine.units(phones.rhymingPart).first.flatMap { unit in
                guard unit.vowel.isStressed else { return nil }
                return unit.vowel.base == Phone.index["ER"]! ? (unit.vowel, [Phone("R")!] + unit.coda) : unit
            }
        }
        spelling = Self.spellingRhyme(spelled)
    }

    /// A rhyming part as the ear compares line endings: secondary stress as stress (good night
    /// rhymes with bright) and a final unstressed `ER` after a vowel as `R` (desire, spire).
    static func rhymeKey(_ phones: Pronunciation) -> [UInt8] {
        let part = phones.rhymingPart
        var key: [UInt8] = []
        key.reserveCapacity(part.count)
        let er0 = Phone("ER0")!, r = Phone("R")!
        for (index, phone) in part.enumerated() {
            if phone.stress == 2 {
                key.append(phone.code - 1)
            } else if phone == er0, index > 0, part[index - 1].isVowel {
                key.append(r.code)
            } else {
                key.append(phone.code)
            }
        }
        return key
    }

    /// The end of a word's spelling from its last vowel letters on, with a silent final e kept
    /// (`love` → `ove`, `though` → `ough`, `sky` → `y`); "" for a word without vowel letters.
    static func spellingRhyme(_ word: String) -> Substring {
        let letters = word.unicodeScalars
        guard let last = letters.indices.last else { return "" }
        func vowel(_ index: String.UnicodeScalarView.Index) -> Bool {
            switch letters[index] {
            case "a", "e", "i", "o", "u": true
            case "y": index != letters.startIndex
            default: false
            }
        }
        var end = last
        // A silent final e belongs to the vowel before it: lov|e, hom|e.
        if letters[last] == "e", last != letters.startIndex {
            let before = letters.index(before: last)
            if !vowel(before) { end = before }
        }
        var index = end
        while !vowel(index) {
            guard index != letters.startIndex else { return letters[last] == "e" ? Substring(word.suffix(1)) : "" }
            index = letters.index(before: index)
        }
        while index != letters.startIndex, vowel(letters.index(before: index)) { index = letters.index(before: index) }
        return Substring(String(String.UnicodeScalarView(letters[index...])))
    }
}

/// How two line endings rhyme, and how alike they sound.
struct EndingPair: Sendable, Equatable {
    /// What the scheme detector weighs: finer than `RhymeType`.
    enum Kind: Sendable, Equatable {
        case identical
        /// The same rhyming part, with secondary stress counting as stress (good night / bright)
        /// and a final unstressed `ER` heard as `R` (desire / spire).
        case perfect
        /// The same final vowel and consonants, one side unstressed (be / poetry).
        case unstressed
        /// The same final consonants after an unstressed vowel on one side and another vowel on
        /// the other (prince / violence, alone / Solomon).
        case unstressedOther
        /// The same consonants after the stressed vowels, the vowels differing: the old rhymes
        /// whose vowels have since moved apart (join / line, come / doom, care / war). The
        /// vowels, as an index into `SchemeWeights.consonance`.
        case consonance(vowels: Int)
        case near
        case eye
        case none

        var description: String {
            switch self {
            case .identical: "identical"
            case .perfect: "perfect"
            case .unstressed: "unstressed"
            case .unstressedOther: "unstressed other"
            case .consonance(let vowels): "consonance " + SchemeWeights.vowelPairName(vowels)
            case .near: "near"
            case .eye: "eye"
            case .none: "none"
            }
        }
    }

    var kind: Kind
    /// `RhymeEngine.similarity` of their closest pronunciations (1 for a perfect rhyme).
    var similarity: Double

    /// The two are spelled alike from their last vowel letters on (love / move).
    var spelledAlike: Bool

    /// The rhyme type a writer is shown: a pair spelled alike whose vowels differ is an eye rhyme.
    var type: RhymeType? {
        switch kind {
        case .identical: .identical
        case .perfect: .perfect
        case .unstressed, .unstressedOther: .unstressed
        case .consonance: spelledAlike ? .eye : .near
        case .near: .near
        case .eye: .eye
        case .none: nil
        }
    }

    /// Compares two endings, strongest kind first: the same word, a perfect rhyme, a rhyme on an
    /// unstressed final syllable, a near rhyme, consonance, an eye rhyme.
    init(_ a: LineEnding, _ b: LineEnding) {
        let alike = !a.spelling.isEmpty && a.spelling == b.spelling
        if a.spelled == b.spelled || (a.word == b.word && !a.guessed) {
            self.init(kind: .identical, similarity: 1, spelledAlike: alike)
            return
        }
        var best = 0.0
        var unstressed: Kind?
        var consonance: Int?
        for (x, partA) in a.parts.enumerated() {
            for (y, partB) in b.parts.enumerated() {
                if partA == partB {
                    self.init(kind: .perfect, similarity: 1, spelledAlike: alike)
                    return
                }
                best = max(best, RhymeEngine.similarity(a.units[x], b.units[y], reach: max(a.reach[x], b.reach[y], 1)))
                if unstressed != .unstressed, let first = a.units[x].last, let second = b.units[y].last {
                    unstressed = Self.unstressedRhyme(first, second) ?? unstressed
                }
                if consonance == nil, let first = a.stressedUnits[x], let second = b.stressedUnits[y],
                   first.vowel.base != second.vowel.base, first.coda == second.coda, !first.coda.isEmpty {
                    consonance = SchemeWeights.vowelPair(first.vowel.base, second.vowel.base)
                }
            }
        }
        let kind: Kind
        if unstressed == .unstressed {
            kind = .unstressed
        } else if best >= RhymeEngine.nearThreshold {
            kind = .near
        } else if let unstressed {
            kind = unstressed
        } else if let consonance {
            kind = .consonance(vowels: consonance)
        } else {
            kind = alike ? .eye : .none
        }
        self.init(kind: kind, similarity: best, spelledAlike: alike)
    }

    init(kind: Kind, similarity: Double, spelledAlike: Bool) {
        self.kind = kind
        self.similarity = similarity
        self.spelledAlike = spelledAlike
    }

    /// Final syllables that rhyme when one of them is unstressed: `.unstressed` for the same vowel
    /// and consonants (be / poetry, sing / wandering) or the old `-y` that rhymes with `eye`
    /// (sky / memory); `.unstressedOther` for the same consonants after another vowel; else nil.
    static func unstressedRhyme(_ a: (vowel: Phone, coda: [Phone]), _ b: (vowel: Phone, coda: [Phone])) -> Kind? {
        guard a.vowel.stress == 0 || b.vowel.stress == 0, a.coda == b.coda else { return nil }
        if a.vowel.base == b.vowel.base { return .unstressed }
        let iy = Phone.index["IY"]!, ay = Phone.index["AY"]!
        let unstressedIY = a.vowel.base == iy && a.vowel.stress == 0 ? b : b.vowel.base == iy && b.vowel.stress == 0 ? a : nil
        if unstressedIY.map({ $0.vowel.base == ay }) == true { return .unstressed }
        // One stressed, one not, and something after the vowels to hear.
        return a.vowel.isStressed != b.vowel.isStressed && !a.coda.isEmpty ? .unstressedOther : nil
    }
}

extension RhymeEngine {
    /// How two line endings rhyme (`identical`, `perfect`, `unstressed`, `near`, `eye`, or nil),
    /// and how alike they sound (0…1), as the scheme detector compares them.
    /// `kind` is the detector's finer reading (`consonance OY/AY`, `unstressed other`…).
    public func lineRhyme(_ a: String, _ b: String) -> (type: RhymeType?, similarity: Double, kind: String) {
        let pair = EndingPair(lineEnding(a), lineEnding(b))
        return (pair.type, pair.similarity, pair.kind.description)
    }

    /// The scheme detector's weighing of two line endings `distance` lines apart (log-odds).
    public func lineRhymeScore(_ a: String, _ b: String, distance: Int) -> Double {
        StanzaScheme.pairScore(EndingPair(lineEnding(a), lineEnding(b)), distance: distance)
    }
}
