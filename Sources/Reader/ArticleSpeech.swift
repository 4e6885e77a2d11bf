import Foundation

/// How a chapter is read aloud: its paragraphs as script lines (one line a paragraph, so the
/// timeline's line number says which paragraph a word is in), in segments small enough to render
/// ahead one after another: the first short, so its voice starts at once, the rest longer.
///
/// What the voice would stumble on never reaches it: a line with no letter or digit (`* * *`,
/// `—`) is left out, and parentheses become brackets, which the speech engines pass over alike
/// but the script reader does not take for pause markers (`(2s)` in an article is text).
public enum ArticleSpeech {
    /// A stretch of the article's text one script line speaks, in UTF-16 units of the whole text.
    public struct Line: Sendable, Equatable, Codable {
        public var location: Int
        public var length: Int
    }

    /// One render's worth: the script, and for its line *n* (1-based, the timeline's `line`) the
    /// stretch of text it speaks, `lines[n - 1]`.
    public struct Segment: Sendable, Equatable, Codable {
        public var script: String
        public var lines: [Line]
    }

    /// The first segment's budget, in UTF-16 units: about fifteen seconds of speech.
    public static let openingUnits = 240
    /// Every later segment's budget: a minute or two of speech.
    public static let segmentUnits = 2_000

    /// The segments that speak `units` of `text` (a chapter's stretch, UTF-16).
    public static func segments(of text: String, in units: Range<Int>) -> [Segment] {
        let utf16 = Array(text.utf16)
        let lower = max(0, min(units.lowerBound, utf16.count)), upper = max(lower, min(units.upperBound, utf16.count))
        var pieces: [(line: Line, script: String)] = []
        var start = lower
        for index in lower...upper where index == upper || utf16[index] == 0x0A {
            if index > start { pieces.append(contentsOf: split(utf16, start..<index)) }
            start = index + 1
        }
        var segments: [Segment] = []
        var current = Segment(script: "", lines: [])
        var used = 0
        for piece in pieces {
            let budget = segments.isEmpty ? openingUnits : segmentUnits
            if !current.lines.isEmpty, used + piece.line.length > budget {
                segments.append(current)
                current = Segment(script: "", lines: [])
                used = 0
            }
            current.script += (current.lines.isEmpty ? "" : "\n") + piece.script
            current.lines.append(piece.line)
            used += piece.line.length
        }
        if !current.lines.isEmpty { segments.append(current) }
        return segments
    }

    /// A paragraph as script lines: trimmed, skipped when it has nothing to say, and cut at
    /// sentence ends when it is longer than a segment.
    static func split(_ utf16: [UInt16], _ range: Range<Int>) -> [(line: Line, script: String)] {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, isSpace(utf16[lower]) { lower += 1 }
        while upper > lower, isSpace(utf16[upper - 1]) { upper -= 1 }
        guard upper > lower else { return [] }
        var cuts: [Range<Int>] = []
        var from = lower
        while upper - from > segmentUnits {
            // The last sentence end (". " "? " "! ") within the budget, else the last space, else the budget.
            let limit = from + segmentUnits
            var cut = (from + 1..<limit).last { index in
                isSpace(utf16[index]) && [0x2E, 0x3F, 0x21, 0x3002, 0xFF01, 0xFF1F].contains(utf16[index - 1])
            } ?? (from + 1..<limit).last { isSpace(utf16[$0]) } ?? limit
            // Never between the halves of a surrogate pair.
            if (0xDC00...0xDFFF).contains(utf16[cut]) { cut -= 1 }
            cuts.append(from..<cut)
            from = cut
            while from < upper, isSpace(utf16[from]) { from += 1 }
        }
        if from < upper { cuts.append(from..<upper) }
        return cuts.compactMap { cut in
            let text = String(decoding: utf16[cut], as: UTF16.self)
            guard text.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }) else { return nil }
            let script = text.replacingOccurrences(of: "(", with: "[").replacingOccurrences(of: ")", with: "]")
                .replacingOccurrences(of: "（", with: "[").replacingOccurrences(of: "）", with: "]")
            return (Line(location: cut.lowerBound, length: cut.count), script)
        }
    }

    static func isSpace(_ unit: UInt16) -> Bool { unit == 0x20 || (0x09...0x0D).contains(unit) || unit == 0xA0 || unit == 0x3000 }
}
