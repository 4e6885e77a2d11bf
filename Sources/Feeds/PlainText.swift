import Foundation

/// Text for a person from what outside services send: markup removed, entities read, whitespace
/// runs made one space. Feeds' titles, transcripts' words and LibriVox's descriptions all go through it.
public enum PlainText {
    /// One line of text: whitespace runs (a title wrapped over lines) become one space.
    public static func line(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
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
