import Foundation

/// Rhymes to offer while a line is being written.
public struct RhymeSuggestions: Codable, Sendable, Equatable {
    public struct Target: Codable, Sendable, Equatable {
        public var word: String
        /// 0-based line whose ending the new line should rhyme with.
        public var line: Int
    }

    public struct Suggestion: Codable, Sendable, Equatable {
        public var word: String
        /// `perfect` or `near`.
        public var type: String
    }

    /// What the line should rhyme with; nil when the recent lines leave no rhyme open.
    public var target: Target?
    /// The partial word at the caret that a chosen suggestion replaces (UTF-16 offsets in the text).
    public var replaceStart: Int
    public var replaceEnd: Int
    public var suggestions: [Suggestion]

    public static let limit = 50
}

extension RhymeEngine {
    /// Suggestions for the line holding `caret` (a UTF-16 offset into `text`).
    ///
    /// The target is inferred from the endings of the stanza's earlier lines: an ending is *open*
    /// when no other earlier ending in the stanza rhymes with it. Of the open endings among the
    /// last three lines, the oldest is the target — so line 2 of a couplet rhymes with line 1,
    /// line 3 of ABAB with line 1, line 4 with line 2; after a closed couplet (AABB line 3) no
    /// rhyme is open. Candidates: perfect rhymes, then near ones, common words first, never the
    /// target itself; when a word is half typed at the caret, only words that start with it.
    public func suggestions(for text: String, caret: Int) -> RhymeSuggestions {
        let utf16 = Array(text.utf16)
        let caret = max(0, min(caret, utf16.count))
        // The line with the caret and the partial word before it.
        var lineStart = caret
        while lineStart > 0, utf16[lineStart - 1] != 10 { lineStart -= 1 }
        var wordStart = caret
        while wordStart > lineStart, let scalar = Unicode.Scalar(utf16[wordStart - 1]),
              CharacterSet.letters.contains(scalar) || scalar == "'" || scalar == "\u{2019}" {
            wordStart -= 1
        }
        let partial = String(decoding: utf16[wordStart..<caret], as: UTF16.self).lowercased().replacingOccurrences(of: "\u{2019}", with: "'")

        let lines = String(decoding: utf16[..<lineStart], as: UTF16.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // The stanza's earlier lines: back to the last blank line.
        var stanza: [(line: Int, ending: Lookup?)] = []
        for (index, line) in lines.enumerated().reversed() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            let ending = Self.words(in: String(line)).last.flatMap { lookup($0.word) }
            stanza.insert((index, ending), at: 0)
        }
        let known = stanza.compactMap { entry in entry.ending.map { (line: entry.line, found: $0) } }
        let open = known.filter { entry in
            !known.contains { other in
                other.line != entry.line && Self.rhymeType(among: entry.found.pronunciations, other.found.pronunciations) != nil
            }
        }
        let recent = Set(stanza.suffix(3).map(\.line))
        let target = open.first { recent.contains($0.line) }

        var suggestions: [RhymeSuggestions.Suggestion] = []
        if let target {
            var seen = Set([target.found.word, partial])
            func offer(_ word: String, _ type: String) {
                guard suggestions.count < RhymeSuggestions.limit, partial.isEmpty || word.hasPrefix(partial), seen.insert(word).inserted else { return }
                suggestions.append(.init(word: word, type: type))
            }
            for id in perfectRhymeIDs(of: target.found) { offer(dictionary.word(at: id), "perfect") }
            // Near rhymes only from words people use (the dictionary is full of surnames), common first.
            let near = nearRhymeIDs(of: target.found, limit: 2000, rankedOnly: dictionary.rankedCount > 0)
            for (id, _) in near.sorted(by: { dictionary.useOrder($0.id) < dictionary.useOrder($1.id) }) {
                offer(dictionary.word(at: id), "near")
            }
        }
        return RhymeSuggestions(target: target.map { .init(word: $0.found.word, line: $0.line) },
                                replaceStart: wordStart, replaceEnd: caret, suggestions: suggestions)
    }
}
