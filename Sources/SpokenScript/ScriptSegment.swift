/// One piece of a parsed script: something to say, or a silence.
public enum ScriptSegment: Sendable, Equatable {
    case phrase(Phrase)
    case pause(Pause)
}

/// Text to speak, with where it starts in the script.
public struct Phrase: Sendable, Equatable {
    /// The words, with runs of white space (line breaks included) folded to single spaces.
    public var text: String
    /// 1-based line of the phrase's first character.
    public var line: Int
    /// 1-based column (in characters) of the phrase's first character.
    public var column: Int

    public init(text: String, line: Int, column: Int) {
        self.text = text
        self.line = line
        self.column = column
    }
}

/// A silence of a given length.
public struct Pause: Sendable, Equatable {
    /// Why the silence is there.
    public enum Origin: Sendable, Equatable {
        /// The author wrote a marker such as `(2s)` at this 1-based line and column.
        case marker(line: Int, column: Int)
        /// Automatic: the end of a line in a script without markers.
        case lineEnd
        /// Automatic: the end of a sentence in a script without markers.
        case sentenceEnd
        /// Automatic: a blank line between stanzas.
        case stanzaBreak
    }

    /// Length in seconds (0…`ScriptParser.maximumPause`).
    public var seconds: Double
    public var origin: Origin
    /// A beat (`(@4s)`, for counted breathing): `seconds` runs from the start of the phrase before
    /// to the start of the phrase after, so the silence is what the phrase leaves of it, and a
    /// render fitted to a length never stretches it.
    public var beat: Bool

    public init(seconds: Double, origin: Origin, beat: Bool = false) {
        self.seconds = seconds
        self.origin = origin
        self.beat = beat
    }
}

/// Something in the script that was probably a mistake; the script still renders.
public struct ScriptWarning: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters.
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A script read into phrases and pauses, with any warnings.
public struct ParsedScript: Sendable, Equatable {
    public var segments: [ScriptSegment]
    public var warnings: [ScriptWarning]
    /// `true` when the author wrote at least one valid pause marker; automatic pauses are then
    /// added only at stanza breaks.
    public var hasMarkers: Bool

    public init(segments: [ScriptSegment], warnings: [ScriptWarning], hasMarkers: Bool) {
        self.segments = segments
        self.warnings = warnings
        self.hasMarkers = hasMarkers
    }

    /// The phrases alone, in order.
    public var phrases: [Phrase] {
        segments.compactMap { if case let .phrase(phrase) = $0 { phrase } else { nil } }
    }

    /// Where phrase `index` (counting phrases only) is among the segments; nil past the last.
    public func segmentIndex(ofPhrase index: Int) -> Int? {
        var phrases = 0
        return segments.firstIndex { segment in
            guard case .phrase = segment else { return false }
            phrases += 1
            return phrases == index + 1
        }
    }

    /// Total silence requested, in seconds (a beat counts what it leaves after its phrase, as estimated).
    public var totalPauseSeconds: Double { pauseSeconds(rate: 1) }

    /// The silence at `rate`: each pause, and what each beat leaves after its phrase is said.
    func pauseSeconds(rate: Double) -> Double {
        var total = 0.0, spoken = 0.0
        for segment in segments {
            switch segment {
            case let .phrase(phrase): spoken = Self.spokenSeconds(phrase.text, rate: rate)
            case let .pause(pause):
                total += pause.beat ? max(0, pause.seconds - spoken) : pause.seconds
                spoken = 0
            }
        }
        return total
    }

    /// About how long a voice takes to say `text` at `rate`.
    public static func spokenSeconds(_ text: String, rate: Double) -> Double {
        Double(text.split(whereSeparator: \.isWhitespace).count) / (wordsPerMinute * max(rate, 0.1)) * 60
    }

    /// Words a voice speaks a minute at rate 1 (a calm reading pace; Piper's Joe reads about this).
    public static let wordsPerMinute = 150.0

    /// About how long the script lasts when spoken at `rate`: its words at `wordsPerMinute`, plus
    /// every pause. For an editor's estimate and a catalog's length before anything is rendered.
    public func estimatedSeconds(rate: Double = 1) -> Double {
        phrases.reduce(0) { $0 + Self.spokenSeconds($1.text, rate: rate) } + pauseSeconds(rate: rate)
    }
}

/// Why a script cannot be spoken at all.
public enum SpokenScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No text, or only pause markers.
    case nothingToSay
    /// Longer than the limit, in characters.
    case tooLong(characters: Int, limit: Int)

    public var description: String {
        switch self {
        case .nothingToSay:
            "The script has nothing to say: write some text (pause markers alone make silence only)."
        case let .tooLong(characters, limit):
            "The script has \(characters) characters; the limit is \(limit). Split it into parts."
        }
    }
}
