import Foundation

/// A stanza's rhyme scheme: which of its lines rhyme together, decided inside the stanza.
///
/// Every pair of line endings close enough to rhyme (at most `window` lines apart) gets a score,
/// the log-odds that a poet meant them to rhyme, from how they rhyme (`EndingPair`) and how far
/// apart they are (`pairScore`). The scheme is the grouping of lines with the highest total score
/// over the pairs inside its groups, found line by line with a beam search, and compared with the
/// schemes verse and songs actually use (`SchemeShapes`), which win ties between borderline
/// pairs. Cost: proportional to the stanza's lines (a fixed window and beam).
struct StanzaScheme {
    /// Lines further apart than this are never scored as a pair.
    static let window = 8
    /// A line joins a group only if the group's latest line is at most this far back.
    static let maximumGap = 6
    /// Groupings kept at each line.
    static let beamWidth = 16
    /// Added to a grouping that is one of the known shapes (couplets, ABAB, a sonnet…).
    static let shapeBonus = 1.0
    /// Added to a pair of words that rhyme in another stanza of the same text.
    static let repeatedPairBonus = 1.0
    /// Added to the grouping most of the text's stanzas of the same length took (poets keep a
    /// stanza's shape through a poem, songwriters a verse's through a song), so a weak rhyme where
    /// the shape has one counts (the couplet of a poem in couplets whose words only nearly
    /// rhyme). Less than a pair that does not rhyme at all weighs (`SchemeWeights.base`, 3.5):
    /// the text's shape never makes a rhyme of two words that have none.
    static let textShapeBonus = 3.0

    /// Group per line (0, 1, 2… in order of first appearance). `endings[i]` nil: the line has
    /// words but no ending that can rhyme, so it is a group of its own.
    static func groups(of endings: [LineEnding?]) -> [Int] {
        groups(of: StanzaPairs(endings))
    }

    /// The same, from the stanza's pairs already compared; `pairBonus(first, second)` is added to
    /// a pair's weight (a pair rhymed in another stanza), and `textShape` (the grouping most of
    /// the text's stanzas of this length took) is weighed with the known shapes, with
    /// `textShapeBonus`.
    static func groups(of pairs: StanzaPairs, pairBonus: (Int, Int) -> Double = { _, _ in 0 },
                       textShape: [Int]? = nil) -> [Int] {
        let count = pairs.count
        guard count > 1 else { return Array(0..<count) }
        // Each pair's weight before distance: row i holds pairs (i - d, i) for d = 1…window.
        var weights = [Double](repeating: -.infinity, count: count * window)
        for second in 1..<count {
            for distance in 1...min(window, second) {
                guard let pair = pairs.pair(second - distance, second) else { continue }
                weights[second * window + distance - 1] = SchemeWeights.base(pair) + pairBonus(second - distance, second)
            }
        }
        // Inside a known shape, lines far apart are meant to rhyme: their distance weighs less.
        func score(_ first: Int, _ second: Int, inShape: Bool = false) -> Double {
            let distance = second - first
            guard distance <= window else { return 0 }
            return weights[second * window + distance - 1] + SchemeWeights.distancePenalty(distance, inShape: inShape)
        }

        // Each grouping keeps only what the next lines can see: the labels of the last `window`
        // lines. The labels themselves are a trail of (previous step, label), read back at the end.
        struct Hypothesis {
            var recent: [Int]    // labels of the last `window` lines, oldest first
            var groups: Int
            var score: Double
            var step: Int        // its entry in `trail`
        }
        var trail: [(previous: Int, label: Int)] = [(-1, 0)]
        trail.reserveCapacity(count * beamWidth * 2)
        var beam = [Hypothesis(recent: [0], groups: 1, score: 0, step: 0)]
        var next: [Hypothesis] = []
        next.reserveCapacity(beamWidth * (maximumGap + 2))
        for line in 1..<count {
            next.removeAll(keepingCapacity: true)
            for hypothesis in beam {
                func extend(_ label: Int, gain: Double) {
                    var grown = hypothesis
                    if grown.recent.count == window { grown.recent.removeFirst() }
                    grown.recent.append(label)
                    if label == hypothesis.groups { grown.groups += 1 }
                    grown.score += gain
                    trail.append((hypothesis.step, label))
                    grown.step = trail.count - 1
                    next.append(grown)
                }
                extend(hypothesis.groups, gain: 0)
                guard pairs.hasEnding[line] else { continue }
                let recent = hypothesis.recent
                var tried: [Int] = []
                for position in stride(from: recent.count - 1, through: max(0, recent.count - maximumGap), by: -1) {
                    let group = recent[position]
                    guard !tried.contains(group) else { continue }
                    tried.append(group)
                    var gain = 0.0
                    for member in 0...position where recent[member] == group {
                        gain += score(line - (recent.count - member), line)
                    }
                    if gain > -.infinity { extend(group, gain: gain) }
                }
            }
            if next.count > beamWidth {
                next.sort { $0.score > $1.score }
                next.removeSubrange(beamWidth...)
            }
            swap(&beam, &next)
        }
        let winner = beam.max { $0.score < $1.score }!
        var labels = [Int](repeating: 0, count: count)
        var step = winner.step
        for line in stride(from: count - 1, through: 0, by: -1) {
            labels[line] = trail[step].label
            step = trail[step].previous
        }

        // The best grouping, or a known shape that explains the pairs better.
        func shapeTotal(_ labels: [Int]) -> Double {
            var sum = shapeBonus
            for second in 1..<count {
                for first in max(0, second - window)..<second where labels[first] == labels[second] {
                    sum += score(first, second, inShape: true)
                }
            }
            return sum
        }
        var best = (labels: labels, score: winner.score)
        var candidates = SchemeShapes.shapes(lines: count).map { ($0, 0.0) }
        if let textShape, textShape.count == count { candidates.append((textShape, textShapeBonus)) }
        for (shape, bonus) in candidates {
            // A line without an ending rhymes with nothing: only shapes that leave it alone fit.
            var sizes = [Int](repeating: 0, count: count)
            for label in shape { sizes[label] += 1 }
            guard shape.indices.allSatisfy({ pairs.hasEnding[$0] || sizes[shape[$0]] == 1 }) else { continue }
            let value = shapeTotal(shape) + bonus
            if value > best.score { best = (shape, value) }
        }
        return best.labels
    }

    /// The log-odds that a poet meant two line endings `distance` lines apart to rhyme.
    static func pairScore(_ pair: EndingPair, distance: Int) -> Double {
        SchemeWeights.base(pair) + SchemeWeights.distancePenalty(distance)
    }
}

/// A stanza's endings compared pair by pair within `StanzaScheme.window`, once: the scheme, a
/// second look with other stanzas' pairs, and the editor's rhyme types all read these.
struct StanzaPairs {
    let count: Int
    /// Which lines have an ending that can rhyme.
    let hasEnding: [Bool]
    /// Pair (i - d, i) at i * window + d - 1; nil when either line has no ending.
    private let pairs: [EndingPair?]

    init(_ endings: [LineEnding?]) {
        let window = StanzaScheme.window
        count = endings.count
        hasEnding = endings.map { $0 != nil }
        var pairs = [EndingPair?](repeating: nil, count: endings.count * window)
        for second in endings.indices {
            guard let b = endings[second] else { continue }
            for distance in 1...window where distance <= second {
                guard let a = endings[second - distance] else { continue }
                pairs[second * window + distance - 1] = EndingPair(a, b)
            }
        }
        self.pairs = pairs
    }

    /// How lines `first` < `second` rhyme, when they are at most a window apart and both have endings.
    func pair(_ first: Int, _ second: Int) -> EndingPair? {
        let distance = second - first
        guard distance >= 1, distance <= StanzaScheme.window else { return nil }
        return pairs[second * StanzaScheme.window + distance - 1]
    }
}

/// The rhyme schemes verse and songs actually use, as groupings of a stanza's lines.
enum SchemeShapes {
    /// Shapes written as letters, each for the stanza length it spells.
    static let named: [String] = [
        "AA", "AAA", "AAAA", "ABA", "ABAB", "ABCB", "AABB", "ABBA", "AABA", "ABAA",
        "AABBA", "ABABB", "ABAAB", "AABCCB", "ABABCC", "ABCABC", "ABBACC",
        "ABABBCC", "ABABABCC", "ABABBCBCC", "ABBAABBA",
        "ABABCDCDEFEFGG", "ABABBCBCCDCDEE",
    ] + sonnets

    /// The named shapes as labels, by length.
    static let namedByLength: [Int: [[Int]]] = Dictionary(grouping: named.map { canonical(labels($0)) }, by: \.count)

    /// Italian sonnets: an octave of two enclosed quatrains (or alternating ones), then one of the
    /// sestets poets wrote after it.
    static let sonnets: [String] = {
        let sestets = ["CDECDE", "CDCDCD", "CDEDCE", "CDDCEE", "CDECED", "CDEEDC", "CDCDEE", "CDEDEC", "CDDCDC", "CDCCDC"]
        return ["ABBAABBA", "ABABABAB"].flatMap { octave in sestets.map { octave + $0 } } + ["ABBAABBA", "ABABCDCD"].map { $0 + "EFEFGG" }
    }()

    /// Every known shape for a stanza of `lines` lines, as group labels: the named ones, couplets
    /// (with a closing triplet when the count is odd), alternating quatrains (ABAB CDCD…), and
    /// terza rima (ABA BCB CDC… D or DD).
    static func shapes(lines: Int) -> [[Int]] {
        var shapes = namedByLength[lines] ?? []
        if lines >= 4 {
            shapes.append((0..<lines).map { lines % 2 == 1 && $0 == lines - 1 ? ($0 - 1) / 2 : $0 / 2 })
        }
        if lines >= 8, lines % 4 == 0 {
            shapes.append((0..<lines).map { 2 * ($0 / 4) + $0 % 2 })
        }
        if lines >= 6 {
            // Terza rima: line 2 of each tercet sets the rhyme of the next tercet's lines 1 and 3.
            var labels: [Int] = []
            for line in 0..<lines {
                let tercet = line / 3, place = line % 3
                labels.append(place == 1 ? tercet + 1 : tercet)
            }
            if lines % 3 == 1 { labels[lines - 1] = lines / 3 }
            shapes.append(canonical(labels))
        }
        return shapes.map(canonical)
    }

    /// How the shapes that begin with `labels` go on: next label → how many ways of going on
    /// take it. A way is the next two lines' labels, so shapes that share them (the ten sestets
    /// after one octave) count once, and each family (couplets, alternating quatrains, terza
    /// rima) counts once however many lengths it comes in.
    static func continuations(of labels: [Int]) -> [Int: Int] {
        let count = labels.count
        var votes: [Int: Int] = [:]
        var ways = Set<ArraySlice<Int>>()
        func vote(_ shape: [Int]) {
            guard shape.count > count, Array(shape.prefix(count)) == labels, ways.insert(shape.prefix(count + 2)).inserted else { return }
            votes[shape[count], default: 0] += 1
        }
        for shapes in namedByLength.values { shapes.forEach(vote) }
        let length = max(count + 1, 4)
        vote(canonical((0..<length + length % 2).map { $0 / 2 }))
        let quatrains = max(8, (count + 4) / 4 * 4)
        vote(canonical((0..<quatrains).map { 2 * ($0 / 4) + $0 % 2 }))
        vote(canonical((0..<max(6, count + 1)).map { line in line % 3 == 1 ? line / 3 + 1 : line / 3 }))
        return votes
    }

    static func labels(_ letters: String) -> [Int] {
        letters.unicodeScalars.map { Int($0.value) - 65 }
    }

    /// Labels renumbered 0, 1, 2… by first appearance.
    static func canonical(_ labels: [Int]) -> [Int] {
        var number: [Int: Int] = [:]
        return labels.map { label in
            if let known = number[label] { return known }
            number[label] = number.count
            return number.count - 1
        }
    }
}
