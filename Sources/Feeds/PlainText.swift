import Foundation

/// Text for a person from what outside services send: markup removed, entities read, whitespace
/// runs made one space. Feeds' titles, transcripts' words and LibriVox's descriptions all go through it.
public enum PlainText {
    /// One line of text: whitespace runs (a title wrapped over lines) become one space.
    public static func line(_ text: String) -> String {
        // Most titles are one line already: ASCII, single spaces, nothing at the ends.
        var previousSpace = true, plain = true
        for byte in text.utf8 {
            if byte == 0x20 {
                if previousSpace { plain = false; break }
                previousSpace = true
            } else if byte < 0x20 || byte >= 0x80 {
                plain = false
                break
            } else {
                previousSpace = false
            }
        }
        if plain && !previousSpace { return text }
        return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `html` without its tags, with named and numeric entities read, as one line: a block's
    /// edge (`</p>`, `<br>`) is a space, an inline tag (`<i>`, `<v Ann>`) nothing.
    public static func fromHTML(_ html: String) -> String {
        let blocks = html.replacingOccurrences(of: "</?(p|br|div|li|ul|ol|h[1-6]|tr|td|blockquote|section)\\b[^>]{0,500}>", with: " ",
                                               options: [.regularExpression, .caseInsensitive])
        return line(entities(blocks.replacingOccurrences(of: "<[^>]{0,500}>", with: "", options: .regularExpression)))
    }

    static let named: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "lrm": "", "rlm": "",
                                          "mdash": "—", "ndash": "–", "hellip": "…", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“"]

    /// `&amp;`, `&#39;`, `&#x2019;` read; an unknown or malformed entity is left as it is.
    static func entities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else { out += "&"; rest = after; continue }
            let name = after[..<semicolon]
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                replacement = named[String(name)]
            }
            if let replacement {
                out += replacement
                rest = after[after.index(after: semicolon)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }
}

extension StringProtocol where UTF8View: BidirectionalCollection {
    /// Whitespace and newlines trimmed from both ends, without bridging to NSString (which
    /// Foundation's trimming does, and which costs more than reading the rest of a feed).
    var trimmed: String {
        let utf8 = self.utf8
        var start = utf8.startIndex, end = utf8.endIndex
        func blank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while start < end, blank(utf8[start]) { utf8.formIndex(after: &start) }
        while end > start, blank(utf8[utf8.index(before: end)]) { utf8.formIndex(before: &end) }
        if start == utf8.startIndex, end == utf8.endIndex, let first = utf8.first, let last = utf8.last, first < 0x80, last < 0x80 {
            return String(self)   // nothing to trim (for a String, no copy)
        }
        let core = self[start..<end]
        // Rarely: other whitespace (a no-break space, an ideographic space) at an end.
        guard let first = core.first, let last = core.last, first.isWhitespace || last.isWhitespace else { return String(core) }
        guard let from = core.firstIndex(where: { !$0.isWhitespace }), let to = core.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(core[from...to])
    }
}
