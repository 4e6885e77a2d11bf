import Foundation

/// What a device needs to rhyme while it cannot reach the server, as one compact versioned text
/// (the server sends it gzipped; issue 34). The device only looks words up in it: scheme letters
/// and the full analysis still come from `RhymeEngine` when the server can be reached.
///
/// Layout, UTF-8, one record per line:
///
///     reverie-rhymes 1 <words> <groups>
///     <near-rhyme bucket keys, space separated>
///     <bucket index> <word>:<syllables>[:<rank>] <word>:<syllables>[:<rank>] …
///
/// - Line 3 on: one line per perfect-rhyme group (words with the same rhyming part), its members
///   common first, so a group's line is also its rhyme suggestions in order. Each word is in the
///   group of its usual (first) pronunciation, once in the file. `rank` is its rank by use (0 =
///   most common; names from `PronouncingDictionary.nameRank`); left out for unranked words.
/// - A near-rhyme bucket gathers groups whose rhyming parts differ only by voicing or nasals
///   (`nearBucket`): time / mine, love / enough, cat / glad. Two words in one bucket and
///   different groups are near rhymes on the device.
public enum OfflineRhymes {
    public static let format = "reverie-rhymes"
    /// Changes whenever the layout or the bucket rule changes (a device then downloads again).
    public static let version = 1

    /// The pack for `dictionary`.
    public static func text(of dictionary: PronouncingDictionary) -> String {
        // Each word in the group of its first pronunciation.
        var homes = [Int](repeating: -1, count: dictionary.count)
        for word in 0..<dictionary.count where usable(dictionary.word(at: word)) {
            let pronunciations = dictionary.pronunciationIDs(ofWord: word)
            guard !pronunciations.isEmpty else { continue }
            homes[word] = dictionary.group(ofPronunciation: pronunciations.lowerBound)
        }
        var bucketIndex: [String: Int] = [:], buckets: [String] = []
        var lines: [String] = []
        var words = 0
        for group in 0..<dictionary.groupCount {
            let members = dictionary.members(ofGroup: group).map(Int.init).filter { homes[$0] == group }
            guard let first = members.first else { continue }
            let phones = dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: first).lowerBound)
            let key = nearBucket(phones)
            let bucket = bucketIndex[key] ?? {
                buckets.append(key)
                bucketIndex[key] = buckets.count - 1
                return buckets.count - 1
            }()
            var line = String(bucket)
            for member in members {
                let syllables = dictionary.phones(ofPronunciation: dictionary.pronunciationIDs(ofWord: member).lowerBound).syllableCount
                line += " \(dictionary.word(at: member)):\(syllables)"
                if let rank = dictionary.rank(ofWord: member) { line += ":\(rank)" }
            }
            lines.append(line)
            words += members.count
        }
        return "\(format) \(version) \(words) \(lines.count)\n" + buckets.joined(separator: " ") + "\n" + lines.joined(separator: "\n") + "\n"
    }

    /// Words the layout can carry (the CMU dictionary has none it cannot, but a damaged one might).
    static func usable(_ word: String) -> Bool {
        !word.isEmpty && !word.contains { $0.isWhitespace || $0 == ":" }
    }

    /// The near-rhyme bucket of a pronunciation: its rhyming part with the vowels' stress left
    /// out and each consonant by its class (`soundClass`), so words whose rhyming parts differ
    /// only by voicing or by a nasal share one: time / mine (`AY N`), love / enough (`AH F`),
    /// cat / glad (`AE T`).
    public static func nearBucket(_ phones: Pronunciation) -> String {
        let part = phones.rhymingPart.map { $0.isVowel ? $0.symbol : soundClass($0.symbol) }
        return part.isEmpty ? "none" : part.joined(separator: "-")
    }

    /// A consonant's class: the pairs `RhymeEngine.consonantSimilarity` scores highest (a voicing
    /// pair, or two nasals) share one, named after its voiceless or first member.
    static func soundClass(_ symbol: String) -> String {
        switch symbol {
        case "B": "P"
        case "D": "T"
        case "G": "K"
        case "V": "F"
        case "Z": "S"
        case "ZH": "SH"
        case "JH": "CH"
        case "DH": "TH"
        case "M", "NG": "N"
        default: symbol
        }
    }
}
