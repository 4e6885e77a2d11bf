import Foundation

/// One line of a transcript: when it is said, by whom, and the words.
public struct ParsedCue: Sendable, Equatable, Codable {
    /// Seconds from the episode's start.
    public var start: Double
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double, end: Double?, speaker: String?, text: String) {
        (self.start, self.end, self.speaker, self.text) = (start, end, speaker, text)
    }
}

/// Podcast transcripts in the four forms `podcast:transcript` names: WebVTT, SRT, the Podcast
/// Index JSON, and HTML (`<cite>`, `<time>`, `<p>`). Each gives cues in time order.
public enum Transcripts {
    public enum Format: String, Sendable { case vtt, srt, json, html }

    static let maximumCues = 200_000

    /// The format for a `type` (`text/vtt`, `application/x-subrip`, `application/srt`,
    /// `application/json`, `text/html`), or by sniffing the text when the type says nothing useful.
    public static func format(type: String?, data: Data) -> Format? {
        switch type?.lowercased().split(separator: ";").first.map({ $0.trimmed }) {
        case "text/vtt": return .vtt
        case "application/x-subrip", "application/srt", "text/srt": return .srt
        case "application/json": return .json
        case "text/html": return .html
        default:
            let head = String(decoding: data.prefix(512), as: UTF8.self).trimmed
            if head.hasPrefix("WEBVTT") { return .vtt }
            if head.hasPrefix("{") { return .json }
            if head.hasPrefix("<") { return .html }
            if head.contains("-->") { return .srt }
            return nil
        }
    }

    public static func parse(_ data: Data, format: Format) throws -> [ParsedCue] {
        let cues: [ParsedCue]
        switch format {
        case .vtt, .srt: cues = try timedText(String(decoding: data, as: UTF8.self), vtt: format == .vtt)
        case .json: cues = try json(data)
        case .html: cues = html(String(decoding: data, as: UTF8.self))
        }
        guard cues.count <= maximumCues else { throw FeedError.tooLarge }
        return cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    // MARK: - WebVTT and SRT

    /// Blocks separated by blank lines; a block with a `-->` line is a cue. VTT's header, NOTE,
    /// STYLE and REGION blocks are skipped; `<v Speaker>` gives the speaker; other tags go.
    static func timedText(_ text: String, vtt: Bool) throws -> [ParsedCue] {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        if vtt && !normalized.trimmed.hasPrefix("WEBVTT") {
            throw FeedError.malformed("a WebVTT transcript starts with WEBVTT")
        }
        var cues: [ParsedCue] = []
        for block in normalized.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { continue }
            let sides = lines[timing].components(separatedBy: "-->")
            guard sides.count == 2, let start = clock(sides[0]), let end = clock(sides[1].split(separator: " ", omittingEmptySubsequences: true).first.map(String.init) ?? "") else { continue }
            var words = lines[(timing + 1)...].joined(separator: " ")
            var speaker: String?
            if let voice = words.range(of: "<v[ .][^>]*>", options: .regularExpression) {
                // `<v Ann Host>` or `<v.loud Bo>`: the name is what follows the first space.
                let tag = words[voice].dropFirst(2).dropLast()
                speaker = tag.firstIndex(of: " ").map { String(tag[tag.index(after: $0)...]).trimmed }
            }
            words = PlainText.fromHTML(words)
            guard !words.isEmpty else { continue }
            cues.append(ParsedCue(start: start, end: end >= start ? end : nil, speaker: speaker?.isEmpty == true ? nil : speaker, text: words))
        }
        return cues
    }

    /// `01:02:03.456`, `02:03.456` (VTT without hours), `01:02:03,456` (SRT's comma).
    static func clock(_ text: String) -> Double? {
        FeedDates.duration(text.replacingOccurrences(of: ",", with: "."))
    }

    // MARK: - JSON

    /// `{"segments": [{"speaker", "startTime", "endTime", "body"}]}`.
    static func json(_ data: Data) throws -> [ParsedCue] {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let segments = root["segments"] as? [Any] else {
            throw FeedError.malformed("the JSON transcript has no \"segments\" list")
        }
        return segments.compactMap { entry in
            guard let segment = entry as? [String: Any], let start = PodcastChapters.seconds(segment["startTime"]), start >= 0,
                  let body = segment["body"] as? String else { return nil }
            let text = PlainText.line(body)
            guard !text.isEmpty else { return nil }
            let end = PodcastChapters.seconds(segment["endTime"]).flatMap { $0 >= start ? $0 : nil }
            return ParsedCue(start: start, end: end, speaker: (segment["speaker"] as? String).map(PlainText.line), text: text)
        }
    }

    // MARK: - HTML

    /// The namespace's HTML form: an optional `<cite>Speaker:</cite>`, a `<time>m:ss</time>`, then
    /// the words in a `<p>`. A `<p>` without a time before it carries on the last speaker's time.
    static func html(_ text: String) -> [ParsedCue] {
        guard let pattern = try? NSRegularExpression(pattern: "<(cite|time|p)\\b[^>]{0,200}>(.*?)</\\1>", options: [.caseInsensitive, .dotMatchesLineSeparators]) else { return [] }
        var cues: [ParsedCue] = []
        var speaker: String?
        var time: Double?
        let source = text as NSString
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: source.length)).prefix(maximumCues) {
            let tag = source.substring(with: match.range(at: 1)).lowercased()
            let inner = PlainText.fromHTML(source.substring(with: match.range(at: 2)))
            switch tag {
            case "cite": speaker = inner.trimmingCharacters(in: CharacterSet(charactersIn: ": ")).isEmpty ? nil : inner.trimmingCharacters(in: CharacterSet(charactersIn: ": "))
            case "time": time = clock(inner)
            default:
                guard !inner.isEmpty, let start = time ?? cues.last?.start else { continue }
                cues.append(ParsedCue(start: start, end: nil, speaker: speaker, text: inner))
                time = nil
            }
        }
        return cues
    }
}
