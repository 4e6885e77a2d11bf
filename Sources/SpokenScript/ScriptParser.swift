import Foundation

/// Reads script text with inline pause markers into phrases and pauses.
///
/// Markers are a number and a unit in parentheses: `(0.3s)`, `(2s)`, `(1.5m)`, `( 2 s )`. They may end
/// a line or sit between phrases on one line (`Splash! (0.5s) Silence again. (4s)`).
/// Parenthesised text that is not a marker (`(softly)`) is spoken as written. Something that looks
/// like a marker with an unknown unit (`(2x)`) is left out and reported; a pause over
/// `maximumPause` is shortened to it and reported.
///
/// **Where phrases end.** With markers, a phrase runs from one marker to the next, across line
/// breaks (the voice reads it as one passage); a blank line also ends it. Without any marker, each
/// sentence is a phrase and automatic pauses go between them (`AutomaticPauses`).
public struct ScriptParser: Sendable {
    /// Silences added where the author wrote none.
    public struct AutomaticPauses: Sendable, Equatable {
        /// After a line that does not end a sentence (scripts without markers), in seconds.
        public var lineEnd: Double
        /// After a sentence (scripts without markers), in seconds.
        public var sentenceEnd: Double
        /// At a blank line between stanzas (every script, unless a marker is already there), in seconds.
        public var stanzaBreak: Double

        public init(lineEnd: Double, sentenceEnd: Double, stanzaBreak: Double) {
            self.lineEnd = lineEnd
            self.sentenceEnd = sentenceEnd
            self.stanzaBreak = stanzaBreak
        }

        /// 0.6 s at a line end, 0.8 s at a sentence end, 1.5 s at a stanza break.
        public static let standard = AutomaticPauses(lineEnd: 0.6, sentenceEnd: 0.8, stanzaBreak: 1.5)
    }

    public var automaticPauses: AutomaticPauses
    /// Longest single pause, in seconds (10 minutes).
    public var maximumPause: Double
    /// Longest script, in characters.
    public var maximumCharacters: Int

    public init(automaticPauses: AutomaticPauses = .standard, maximumPause: Double = 600, maximumCharacters: Int = 200_000) {
        self.automaticPauses = automaticPauses
        self.maximumPause = maximumPause
        self.maximumCharacters = maximumCharacters
    }

    /// Parses a script.
    /// - Throws: `SpokenScriptError.tooLong` or `.nothingToSay`.
    public func parse(_ text: String) throws -> ParsedScript {
        let count = text.count
        guard count <= maximumCharacters else { throw SpokenScriptError.tooLong(characters: count, limit: maximumCharacters) }

        var warnings: [ScriptWarning] = []
        // "\r\n" is one Character in Swift, so it is not a "\n": fold Windows and old Mac line ends first.
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let lines = unified.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            Self.tokens(in: Array(line), line: index + 1,
                        maximumPause: maximumPause, warnings: &warnings)
        }
        let hasMarkers = lines.contains { $0.contains { if case .marker = $0 { true } else { false } } }

        var builder = SegmentBuilder(pauses: automaticPauses)
        for (index, tokens) in lines.enumerated() {
            let lineNumber = index + 1
            if tokens.allSatisfy(\.isBlank) {
                builder.stanzaBreak()
                continue
            }
            for token in tokens {
                switch token {
                case let .text(characters, column):
                    if hasMarkers {
                        builder.append(characters, line: lineNumber, column: column)
                    } else {
                        builder.appendSentences(characters, line: lineNumber, column: column)
                    }
                case let .marker(seconds, beat, column):
                    builder.flush()
                    builder.segments.append(.pause(Pause(seconds: seconds, origin: .marker(line: lineNumber, column: column), beat: beat)))
                case .ignored:
                    break
                }
            }
            if !hasMarkers { builder.lineEnd() }
        }
        builder.flush()
        builder.dropTrailingAutomaticPause()

        guard builder.segments.contains(where: { if case .phrase = $0 { true } else { false } }) else {
            throw SpokenScriptError.nothingToSay
        }
        return ParsedScript(segments: builder.segments, warnings: warnings, hasMarkers: hasMarkers)
    }
}

// MARK: - Tokens

extension ScriptParser {
    enum Token: Equatable {
        /// Text starting at a 1-based column.
        case text([Character], column: Int)
        case marker(seconds: Double, beat: Bool, column: Int)
        /// A marker-like group that was reported and is not spoken.
        case ignored

        var isBlank: Bool {
            switch self {
            case let .text(characters, _): characters.allSatisfy(\.isWhitespace)
            case .marker: false
            case .ignored: true
            }
        }
    }

    /// Splits one line into text and markers.
    static func tokens(in line: [Character], line number: Int, maximumPause: Double, warnings: inout [ScriptWarning]) -> [Token] {
        var tokens: [Token] = []
        var text: [Character] = []
        var textStart = 0
        var index = 0

        func flushText() {
            if !text.isEmpty { tokens.append(.text(text, column: textStart + 1)) }
            text = []
        }

        while index < line.count {
            if line[index] == "(", let group = MarkerGroup(line, at: index) {
                flushText()
                let column = index + 1
                let source = String(line[index..<group.end])
                switch group.unit.lowercased() {
                case "s", "m":
                    var seconds = group.unit.lowercased() == "m" ? group.value * 60 : group.value
                    if seconds > maximumPause {
                        warnings.append(ScriptWarning(line: number, column: column,
                            message: "\(source) is over the limit of \(Self.describe(maximumPause)) for one pause; it is shortened to \(Self.describe(maximumPause))."))
                        seconds = maximumPause
                    }
                    tokens.append(.marker(seconds: seconds, beat: group.beat, column: column))
                default:
                    warnings.append(ScriptWarning(line: number, column: column,
                        message: "\(source) looks like a pause with an unknown unit '\(group.unit)'; write s for seconds or m for minutes, as in (2s) or (1.5m). It is left out."))
                    tokens.append(.ignored)
                }
                index = group.end
                textStart = index
                continue
            }
            if text.isEmpty { textStart = index }
            text.append(line[index])
            index += 1
        }
        flushText()
        return tokens
    }

    /// "10 minutes", "1 minute", "45 seconds", "0.5 seconds".
    static func describe(_ seconds: Double) -> String {
        func amount(_ value: Double, _ unit: String) -> String {
            let number = value == value.rounded() ? String(Int(value)) : String(value)
            return "\(number) \(unit)\(value == 1 ? "" : "s")"
        }
        return seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 ? amount(seconds / 60, "minute") : amount(seconds, "second")
    }
}

/// `( number unit )` starting at an opening parenthesis: a number (`2`, `0.3`, `.5`), then 1–4 letters.
struct MarkerGroup {
    var value: Double
    var unit: String
    /// Index just past the closing parenthesis.
    var end: Int

    /// A beat (`(@4s)`): the next phrase starts that long after the previous one started.
    var beat: Bool

    init?(_ line: [Character], at start: Int) {
        var index = start + 1
        func skipSpaces() { while index < line.count, line[index] == " " || line[index] == "\t" { index += 1 } }
        skipSpaces()
        beat = index < line.count && line[index] == "@"
        if beat {
            index += 1
            skipSpaces()
        }
        var number = ""
        while index < line.count, line[index].isASCII, line[index].isNumber || line[index] == "." {
            number.append(line[index])
            index += 1
        }
        guard let value = Double(number), number.filter({ $0 == "." }).count <= 1 else { return nil }
        skipSpaces()
        var unit = ""
        while index < line.count, line[index].isASCII, line[index].isLetter {
            unit.append(line[index])
            index += 1
        }
        guard (1...4).contains(unit.count) else { return nil }
        skipSpaces()
        guard index < line.count, line[index] == ")" else { return nil }
        self.value = value
        self.unit = unit
        self.end = index + 1
    }
}

// MARK: - Building segments

/// Collects phrases and pauses, folding white space and placing automatic pauses.
struct SegmentBuilder {
    let pauses: ScriptParser.AutomaticPauses
    var segments: [ScriptSegment] = []
    private var pending = ""
    private var pendingLine = 0
    private var pendingColumn = 0

    init(pauses: ScriptParser.AutomaticPauses) {
        self.pauses = pauses
    }

    /// Adds text to the phrase being built (scripts with markers).
    mutating func append(_ characters: [Character], line: Int, column: Int) {
        let folded = Self.fold(characters)
        guard !folded.isEmpty else { return }
        if pending.isEmpty {
            pendingLine = line
            pendingColumn = column + (characters.firstIndex { !$0.isWhitespace } ?? 0)
            pending = folded
        } else {
            pending += " " + folded
        }
    }

    /// Adds each sentence as its own phrase, with sentence pauses between (scripts without markers).
    mutating func appendSentences(_ characters: [Character], line: Int, column: Int) {
        var start = 0
        var index = 0
        while index < characters.count {
            if Self.endsSentence(characters[index]) {
                var end = index + 1
                while end < characters.count, Self.closesQuote(characters[end]) || Self.endsSentence(characters[end]) { end += 1 }
                if end == characters.count || characters[end].isWhitespace {
                    append(Array(characters[start..<end]), line: line, column: column + start)
                    if flush(), end < characters.count {
                        segments.append(.pause(Pause(seconds: pauses.sentenceEnd, origin: .sentenceEnd)))
                    }
                    start = end
                    index = end
                    continue
                }
            }
            index += 1
        }
        if start < characters.count {
            append(Array(characters[start...]), line: line, column: column + start)
            flush()
        }
    }

    /// Ends the phrase being built. Returns whether there was one.
    @discardableResult
    mutating func flush() -> Bool {
        guard !pending.isEmpty else { return false }
        segments.append(.phrase(Phrase(text: pending, line: pendingLine, column: pendingColumn)))
        pending = ""
        return true
    }

    /// The end of a line in a script without markers.
    mutating func lineEnd() {
        flush()
        guard case let .phrase(phrase)? = segments.last else { return }
        let sentence = phrase.text.last.map { Self.endsSentence($0) || Self.closesQuote($0) } ?? false
        segments.append(.pause(Pause(seconds: sentence ? pauses.sentenceEnd : pauses.lineEnd, origin: sentence ? .sentenceEnd : .lineEnd)))
    }

    /// A blank line: a stanza break, unless the author already put a pause there.
    mutating func stanzaBreak() {
        flush()
        switch segments.last {
        case .phrase?:
            segments.append(.pause(Pause(seconds: pauses.stanzaBreak, origin: .stanzaBreak)))
        case let .pause(pause)? where pause.origin == .lineEnd || pause.origin == .sentenceEnd:
            segments[segments.count - 1] = .pause(Pause(seconds: pauses.stanzaBreak, origin: .stanzaBreak))
        default:
            break
        }
    }

    /// The script's end needs no automatic silence (an author's final marker stays).
    mutating func dropTrailingAutomaticPause() {
        while case let .pause(pause)? = segments.last {
            if case .marker = pause.origin { break }
            segments.removeLast()
        }
    }

    static func fold(_ characters: [Character]) -> String {
        String(characters).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func endsSentence(_ character: Character) -> Bool { ".!?…".contains(character) }
    static func closesQuote(_ character: Character) -> Bool { "\"'”’)]".contains(character) }
}
