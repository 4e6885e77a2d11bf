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

    /// What the line should rhyme with; nil when the stanza's scheme asks for a new rhyme.
    public var target: Target?
    /// The line at the caret is finished (its last word already rhymes as the scheme asks), so
    /// the target and suggestions are for the next line; a chosen word starts a new line.
    public var nextLine: Bool
    /// The partial word at the caret that a chosen suggestion replaces (UTF-16 offsets in the text).
    public var replaceStart: Int
    public var replaceEnd: Int
    public var suggestions: [Suggestion]

    public static let limit = 50
}

extension RhymeEngine {
    /// Words ranked below this many common ones are rare: offered last, if at all.
    static let commonWords = 20_000

    /// Suggestions for the line holding `caret` (a UTF-16 offset into `text`).
    ///
    /// The target is the rhyme the stanza's scheme asks for next: the earlier lines' scheme
    /// (`StanzaScheme`) is continued the way the shapes poets use continue it (AB → A, ABA → B,
    /// AAB → B); when they ask for a new rhyme or none fits, the oldest ending of the last three
    /// lines that nothing rhymes with yet (A → A), and nothing after a closed couplet or
    /// quatrain. When the caret ends a line whose last word already rhymes with its target, the
    /// suggestions are for the next line. Candidates: perfect rhymes (through the
    /// word's usual pronunciation first), then near ones, common words first; proper names and
    /// rare words only when the text already uses them, and rare words after the rest. Never the
    /// target itself; when a word is half typed at the caret, only words that start with it.
    public func suggestions(for text: String, caret: Int) -> RhymeSuggestions {
        let utf16 = Array(text.utf16)
        let caret = max(0, min(caret, utf16.count))
        // The line with the caret and the partial word before it.
        var lineStart = caret
        while lineStart > 0, utf16[lineStart - 1] != 10 { lineStart -= 1 }
        var lineEnd = caret
        while lineEnd < utf16.count, utf16[lineEnd] != 10 { lineEnd += 1 }
        var wordStart = caret
        while wordStart > lineStart, let scalar = Unicode.Scalar(utf16[wordStart - 1]),
              CharacterSet.letters.contains(scalar) || scalar == "'" || scalar == "\u{2019}" {
            wordStart -= 1
        }
        let partial = String(decoding: utf16[wordStart..<caret], as: UTF16.self).lowercased().replacingOccurrences(of: "\u{2019}", with: "'")
        let rest = String(decoding: utf16[caret..<lineEnd], as: UTF16.self)
        let atLineEnd = !rest.unicodeScalars.contains { CharacterSet.letters.contains($0) }

        let lines = String(decoding: utf16[..<lineStart], as: UTF16.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // The stanza's earlier lines: back to the last blank line.
        var stanza: [(line: Int, ending: LineEnding?)] = []
        for (index, line) in lines.enumerated().reversed() {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            let ending = Self.words(in: String(line)).last.map { lineEnding($0.word) }
            stanza.insert((index, ending.flatMap { $0.pronunciations.isEmpty ? nil : $0 }), at: 0)
        }
        var target = nextRhyme(after: stanza)
        var nextLine = false
        // A finished line: its last word already answers the target.
        if atLineEnd, !partial.isEmpty, let current = target, dictionaryID(partial) != nil {
            let typed = lineEnding(partial)
            if EndingPair(typed, current.ending).type != nil {
                stanza.append((lines.count, typed))
                target = nextRhyme(after: stanza)
                nextLine = true
            }
        }

        var suggestions: [RhymeSuggestions.Suggestion] = []
        if let target, let found = target.ending.found {
            let filter = nextLine ? "" : partial
            let used = Set(Self.words(in: text).map { $0.word.lowercased() })
            var seen = Set([target.ending.spelled, target.ending.word, filter])
            var rare: [String] = []
            // Room for near rhymes after the perfect ones: a songwriter wants both.
            let perfectRoom = RhymeSuggestions.limit - RhymeSuggestions.limit / 4
            func offer(_ id: Int, _ type: String) {
                let word = dictionary.word(at: id)
                let room = type == "perfect" ? perfectRoom : RhymeSuggestions.limit
                guard suggestions.count < room, filter.isEmpty || word.hasPrefix(filter), !seen.contains(word) else { return }
                let rank = dictionary.rank(ofWord: id) ?? Int.max
                if rank >= Self.commonWords && !used.contains(word) {
                    // Rare words last; names (ranked after every other word) and unranked words not at all.
                    if type == "perfect", rank < PronouncingDictionary.nameRank { rare.append(word) }
                    return
                }
                seen.insert(word)
                suggestions.append(.init(word: word, type: type))
            }
            let key = Set(target.ending.parts)
            // Perfect rhymes through the word's usual (first) pronunciation, then through another
            // one (don't said "dohn" for stone).
            let perfect = perfectRhymeIDs(of: found)
            let targetGroups = Set(groups(of: found))
            let usual = perfect.filter { targetGroups.contains(dictionary.group(ofPronunciation: dictionary.pronunciationIDs(ofWord: $0).lowerBound)) }
            let usualSet = Set(usual)
            // A rhyme that differs only in secondary stress (good night / bright) is perfect too.
            let near = nearRhymeIDs(of: found, limit: 2000, rankedOnly: dictionary.rankedCount > 0)
                .sorted { dictionary.useOrder($0.id) < dictionary.useOrder($1.id) }
            let stressPerfect = near.filter { candidate in
                dictionary.pronunciationIDs(ofWord: candidate.id).contains { key.contains(LineEnding.rhymeKey(dictionary.phones(ofPronunciation: $0))) }
            }.map(\.id)
            for id in usual { offer(id, "perfect") }
            for id in stressPerfect { offer(id, "perfect") }
            for id in perfect where !usualSet.contains(id) { offer(id, "perfect") }
            let perfectSet = usualSet.union(perfect).union(stressPerfect)
            for (id, _) in near where !perfectSet.contains(id) { offer(id, "near") }
            for word in rare where suggestions.count < RhymeSuggestions.limit && seen.insert(word).inserted {
                suggestions.append(.init(word: word, type: "perfect"))
            }
        }
        return RhymeSuggestions(target: target.map { .init(word: $0.ending.spelled, line: $0.line) }, nextLine: nextLine,
                                replaceStart: nextLine ? caret : wordStart, replaceEnd: caret, suggestions: suggestions)
    }

    /// The ending the line after `stanza` should rhyme with, or nil for a new rhyme.
    func nextRhyme(after stanza: [(line: Int, ending: LineEnding?)]) -> (line: Int, ending: LineEnding)? {
        guard !stanza.isEmpty else { return nil }
        let labels = StanzaScheme.groups(of: stanza.map(\.ending))
        let count = labels.count
        // How the shapes poets use go on from these labels: the most common next letter.
        let votes = SchemeShapes.continuations(of: labels)
        let groups = (labels.max() ?? -1) + 1
        // Ties go to a new rhyme (a finished quatrain is as often followed by B as by a new one).
        if let (label, _) = votes.max(by: { a, b in a.value != b.value ? a.value < b.value : a.key < b.key }), label < groups {
            guard let line = labels.lastIndex(of: label), let ending = stanza[line].ending else { return nil }
            return (stanza[line].line, ending)
        }
        // A new rhyme, or no shape goes on from here: the oldest of the last three endings that
        // nothing rhymes with yet (after one line, its own ending), else nothing is open.
        for index in max(0, count - 3)..<count where labels.filter({ $0 == labels[index] }).count == 1 {
            if let ending = stanza[index].ending { return (stanza[index].line, ending) }
        }
        return nil
    }
}
