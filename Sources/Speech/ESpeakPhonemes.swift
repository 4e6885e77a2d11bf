import CESpeakNG
import Foundation

/// Pronunciations guessed by eSpeak NG's letter-to-sound rules (American English), written in
/// ARPAbet like the CMU dictionary: for names, slang and invented words the dictionary lacks.
public enum ESpeakPhonemes {
    /// `T AY1 M`-style phones for one word, or nil when eSpeak cannot load or yields no vowel.
    public static func arpabet(for word: String) -> String? {
        guard let mnemonics = try? ESpeakLibrary.shared.run({ _ -> String? in
            try ESpeakLibrary.shared.use(voice: "en-us")
            let bytes = Array(word.utf8CString)
            return bytes.withUnsafeBufferPointer { buffer -> String? in
                var pointer: UnsafeRawPointer? = UnsafeRawPointer(buffer.baseAddress)
                // Mode: eSpeak's ASCII names, separated by spaces (bits 8-23 hold the separator).
                guard let result = espeak_TextToPhonemes(&pointer, Int32(espeakCHARS_UTF8), Int32(0x20 << 8)) else { return nil }
                return String(cString: result)
            }
        }) else { return nil }
        return arpabet(fromMnemonics: mnemonics)
    }

    /// Converts eSpeak's English phoneme names (`h @ l 'oU`) to ARPAbet (`HH AH0 L OW1`). A stress
    /// mark (`'` primary, `,` secondary) belongs to the next vowel; unmarked vowels get 0.
    public static func arpabet(fromMnemonics text: String) -> String? {
        var phones: [String] = []
        var pending = "0"
        var sawPrimary = false
        // A stress mark may follow a phone without a separator (`t'aI`): it starts a new token.
        let spaced = text.replacingOccurrences(of: "'", with: " '").replacingOccurrences(of: ",", with: " ,")
        for rawToken in spaced.split(whereSeparator: { $0 == " " || $0 == "_" }) {
            var token = Substring(rawToken)
            while let first = token.first, first == "'" || first == "," {
                pending = first == "'" ? "1" : "2"
                token = token.dropFirst()
            }
            guard !token.isEmpty else { continue }
            // Variants the table lacks (`t2`, `e:`, `I#`) are their plain phone.
            while vowels[String(token)] == nil, consonants[String(token)] == nil, token.count > 1,
                  let last = token.last, last.isNumber || last == ":" || last == "#" {
                token = token.dropLast()
            }
            if let vowel = vowels[String(token)] {
                if pending == "1" { sawPrimary = true }
                phones.append(vowel[0] + pending)
                phones += vowel.dropFirst()
                pending = "0"
            } else if let consonant = consonants[String(token)] {
                phones.append(consonant)
            }
        }
        guard phones.contains(where: { $0.last?.isNumber == true }) else { return nil }
        // A word always has a main stress; eSpeak leaves it out of some one-syllable words.
        if !sawPrimary, let first = phones.firstIndex(where: { $0.last?.isNumber == true }) {
            phones[first] = String(phones[first].dropLast()) + "1"
        }
        return phones.joined(separator: " ")
    }

    /// eSpeak vowel → ARPAbet vowel (stress added) and any phones after it (r-coloured vowels).
    static let vowels: [String: [String]] = [
        "a": ["AE"], "a#": ["AH"], "aa": ["AA"], "A:": ["AA"], "A": ["AA"], "A@": ["AA", "R"], "aI": ["AY"], "aI@": ["AY", "ER"],
        "aI3": ["AY", "ER"], "aU": ["AW"], "aU@": ["AW", "ER"], "@": ["AH"], "@2": ["AH"], "@5": ["AH"], "@L": ["AH", "L"], "@U": ["OW"],
        "3": ["ER"], "3:": ["ER"], "e": ["EH"], "E": ["EH"], "e@": ["EH", "R"], "eI": ["EY"], "i": ["IY"], "i:": ["IY"],
        "i@": ["IH", "R"], "i@3": ["IH", "R"], "I": ["IH"], "I#": ["IH"], "I2": ["IH"], "0": ["AA"], "O": ["AO"], "O:": ["AO"],
        "O2": ["AO"], "O@": ["AO", "R"], "o@": ["AO", "R"], "OI": ["OY"], "oU": ["OW"], "o": ["OW"], "u": ["UW"], "u:": ["UW"],
        "U": ["UH"], "U@": ["UH", "R"], "V": ["AH"], "IR": ["IH", "R"], "VR": ["AH", "R"], "eI@": ["EY", "ER"],
    ]

    /// eSpeak consonant → ARPAbet.
    static let consonants: [String: String] = [
        "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V", "T": "TH", "D": "DH", "s": "S",
        "z": "Z", "S": "SH", "Z": "ZH", "h": "HH", "m": "M", "n": "N", "N": "NG", "l": "L", "r": "R", "w": "W", "j": "Y",
        "tS": "CH", "dZ": "JH", "t#": "T", "d#": "D", "n-": "N", "l-": "L", "r-": "R", "m-": "M", "x": "K", "W": "W",
    ]
}
