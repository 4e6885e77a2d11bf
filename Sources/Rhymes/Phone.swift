import Foundation

/// One ARPAbet phone as the CMU dictionary writes it: `AY1`, `T`. Stored in one byte: the symbol's
/// index times four, plus the stress (0, 1, 2) for vowels or 3 for consonants.
public struct Phone: Hashable, Sendable, CustomStringConvertible {
    public let code: UInt8

    /// The 39 ARPAbet symbols of the CMU dictionary; the first 15 are vowels.
    public static let symbols = ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW",
                                 "B", "CH", "D", "DH", "F", "G", "HH", "JH", "K", "L", "M", "N", "NG", "P", "R",
                                 "S", "SH", "T", "TH", "V", "W", "Y", "Z", "ZH"]
    static let vowelCount = 15
    static let index: [String: Int] = Dictionary(uniqueKeysWithValues: symbols.enumerated().map { ($1, $0) })

    public init(code: UInt8) { self.code = code }

    /// `AY1`, `t`; nil for anything else.
    public init?(_ text: some StringProtocol) {
        var base = text.uppercased()
        var stress = 3
        if let last = base.last, let digit = last.wholeNumberValue {
            guard (0...2).contains(digit) else { return nil }
            stress = digit
            base.removeLast()
        }
        guard let symbol = Self.index[base] else { return nil }
        let vowel = symbol < Self.vowelCount
        if vowel && stress == 3 { stress = 0 }
        if !vowel && stress != 3 { return nil }
        code = UInt8(symbol << 2 | stress)
    }

    public var symbolIndex: Int { Int(code >> 2) }
    public var symbol: String { Self.symbols[symbolIndex] }
    public var isVowel: Bool { symbolIndex < Self.vowelCount }
    /// 0, 1 or 2 for vowels; nil for consonants.
    public var stress: Int? { isVowel ? Int(code & 3) : nil }
    public var isStressed: Bool { stress == 1 || stress == 2 }
    /// The same phone without its stress mark.
    public var base: Int { symbolIndex }

    public var description: String { isVowel ? symbol + String(code & 3) : symbol }
}

/// A pronunciation: phones in order.
public typealias Pronunciation = [Phone]

extension Array where Element == Phone {
    /// `T AY1 M`.
    public var arpabet: String { map(\.description).joined(separator: " ") }

    /// Parses `T AY1 M`; nil if any phone is not ARPAbet.
    public init?(arpabet: some StringProtocol) {
        var phones: [Phone] = []
        for token in arpabet.split(separator: " ") {
            guard let phone = Phone(token) else { return nil }
            phones.append(phone)
        }
        self = phones
    }

    /// Syllables: one per vowel.
    public var syllableCount: Int { filter(\.isVowel).count }

    /// The rhyming part, as the `pronouncing` library defines it: from the last vowel with
    /// primary or secondary stress (not counting the first phone) to the end; the whole
    /// pronunciation when there is none.
    public var rhymingPart: [Phone] {
        var index = count - 1
        while index > 0 {
            if self[index].isStressed { return Array(self[index...]) }
            index -= 1
        }
        return self
    }
}
