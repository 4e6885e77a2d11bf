import Foundation

/// The numbers the scheme detector weighs pairs of line endings with, as log-odds that a poet
/// meant the two lines to rhyme.
///
/// Measured on the development set (`../shared/data/rhyme-dev`, stanzas by seven poets of the
/// 17th to 20th centuries with their rhyme schemes): for each kind of pair, the share of pairs of
/// that kind one line apart that the poet rhymed, as log((rhymed + ½) / (not + ½)), rounded; and
/// how much less likely a rhyme is at each further distance. `make bench` prints the accuracy
/// they give.
enum SchemeWeights {
    /// The vowel pair (a, b) as one index, the same either way round.
    static func vowelPair(_ a: Int, _ b: Int) -> Int { min(a, b) * Phone.vowelCount + max(a, b) }

    static func vowelPairName(_ pair: Int) -> String {
        Phone.symbols[pair / Phone.vowelCount] + "/" + Phone.symbols[pair % Phone.vowelCount]
    }

    /// A pair's weight one line apart, by kind.
    static func base(_ pair: EndingPair) -> Double {
        switch pair.kind {
        case .identical: 2.9
        case .perfect: 5.9
        case .unstressed: 2.6
        case .unstressedOther: 1.4
        // Consonance spelled alike (love / move) is at least an eye rhyme.
        case .consonance(let vowels): max(consonance[vowels] ?? otherConsonance, pair.spelledAlike ? eye : -.infinity)
        // Near rhymes by similarity, as measured: 0.8 is the same consonants after close vowels
        // (storm / charm), which poets use; 0.85 the same vowel before unlike consonants
        // (time / mine), which songs use more than poems.
        case .near:
            switch pair.similarity {
            case ..<0.75: -2.0
            case ..<0.8: -1.4
            case ..<0.85: 2.3
            case ..<0.9: 0.6
            default: 2.8
            }
        case .eye: eye
        case .none: -3.5
        }
    }

    /// An eye rhyme's weight one line apart.
    static let eye = 1.1

    /// What `distance` lines between two endings take off their weight, in a free grouping or
    /// inside one of the shapes poets use.
    static func distancePenalty(_ distance: Int, inShape: Bool = false) -> Double {
        let table = inShape ? shapeDistance : self.distance
        return table[min(distance, table.count) - 1]
    }

    /// Added for each further line between the two: a rhyme two lines apart is about eight
    /// times less likely than one line apart, whatever its kind.
    static let distance: [Double] = [0, -2.1, -3.7, -4.9, -6.0, -7.0, -7.5, -8.0]
    /// The same inside one of the shapes poets use (`SchemeShapes`), where lines far apart are
    /// meant to rhyme.
    static let shapeDistance: [Double] = [0, -1, -1.5, -2, -2.5, -3, -3.5, -4]

    /// Consonance (the same consonants after different stressed vowels) by vowel pair: the
    /// pairs poets rhymed one line apart four times in five or more (done / known, god / abode,
    /// come / doom, join / line, past / placed, field / held, proud / bowed, was / has, gone /
    /// none, good / abode, more / poor, heard / yard, were / care, stir / fear, turn / scorn),
    /// and those rhymed about half the time or more (are / care, mind / wind, care / war,
    /// crowd / brood). Pairs not listed weigh `otherConsonance`: on the development set the
    /// others were rhymed fewer than one time in five.
    static let consonance: [Int: Double] = {
        var weights: [Int: Double] = [:]
        let strong = [("AH", "OW"), ("AA", "OW"), ("AH", "UW"), ("AY", "OY"), ("AE", "EY"), ("EH", "IY"), ("AW", "OW"),
                      ("AA", "AE"), ("AH", "AO"), ("OW", "UH"), ("AO", "UW"),
                      // An r-coloured vowel against a vowel and R: heard / yard, were / care, stir / fear, turn / scorn.
                      ("AA", "ER"), ("EH", "ER"), ("ER", "IH"), ("AO", "ER")]
        let some = [("AA", "EH"), ("AY", "IH"), ("AO", "EH"), ("AW", "UW")]
        for (a, b) in strong { weights[vowelPair(Phone.index[a]!, Phone.index[b]!)] = 2.5 }
        for (a, b) in some { weights[vowelPair(Phone.index[a]!, Phone.index[b]!)] = 1.0 }
        return weights
    }()
    static let otherConsonance = -2.5
}
