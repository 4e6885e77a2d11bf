import CReverieXML
import Foundation

/// What a feed needed before it could be read, as podcast hosts really publish them (in
/// feedparser's spirit): each kind is repaired only when the feed fails to read as it is.
public enum FeedRepair: String, Codable, Sendable, CaseIterable {
    case leadingText = "text before the XML declaration"
    case encoding = "an encoding it does not declare"
    case nulBytes = "NUL bytes"
    case controlCharacters = "control characters XML does not allow"
    case bareAmpersands = "ampersands not written as &amp;"
    case htmlEntities = "HTML entities XML does not define"
    case cdataInAttributes = "CDATA inside attributes"
    case unclosed = "elements left open at the end"
    case rootNamespace = "a namespace on <rss>"
}

/// The byte-level repairs, made together on a copy: the text decoded to UTF-8 first (an
/// undeclared Windows code page is sniffed), then NULs and the other control characters XML never
/// allows dropped wherever they are (in text, CDATA, comments, attribute values: libxml2 stops
/// reading at the first, so a feed with one in its second episode read as one episode), then one
/// pass that escapes stray ampersands, turns HTML entities into character references and unwraps
/// CDATA in attribute values, leaving CDATA sections, comments and processing instructions as
/// they are.
/// Entity declarations are never touched: a feed that declares one is still refused first.
enum FeedRepairs {
    static func repair(_ data: Data) -> (Data, Set<FeedRepair>) {
        var repairs: Set<FeedRepair> = []
        var bytes = [UInt8](data)
        if let decoded = utf8(bytes) {
            if decoded != bytes { repairs.insert(.encoding) }
            bytes = decoded
        }
        let kept = withoutControls(bytes)
        if kept.count < bytes.count {
            if bytes.contains(0) { repairs.insert(.nulBytes) }
            if bytes.contains(where: { $0 != 0 && isControl($0) }) { repairs.insert(.controlCharacters) }
            bytes = kept
        }
        // Whatever comes before the declaration (or, without one, before the first tag).
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        // (To the first markup only: a declaration further on, inside content, is not skipped to.)
        if let found = firstIndex(of: [UInt8(ascii: "<")], in: bytes, from: start), found > start {
            repairs.insert(.leadingText)
            start = found
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 16)
        var index = start
        func at(_ text: String) -> Bool { bytes[index...].starts(with: Array(text.utf8)) }
        /// Copies through `end` (or to the end of the document).
        func copy(through end: String) {
            if let found = firstIndex(of: Array(end.utf8), in: bytes, from: index) {
                out += bytes[index..<found + end.utf8.count]
                index = found + end.utf8.count
            } else {
                out += bytes[index...]
                index = bytes.count
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") && at("<![CDATA[") {
                // In an attribute's value (`url="<![CDATA[…]]>"`): its text, escaped.
                let quote = out.last
                if (quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'")) && out.dropLast().last == UInt8(ascii: "="),
                   let end = firstIndex(of: Array("]]>".utf8), in: bytes, from: index + 9) {
                    repairs.insert(.cdataInAttributes)
                    for inner in bytes[(index + 9)..<end] {
                        switch inner {
                        case UInt8(ascii: "&"): out += Array("&amp;".utf8)
                        case UInt8(ascii: "<"): out += Array("&lt;".utf8)
                        case quote: out += Array((quote == UInt8(ascii: "\"") ? "&quot;" : "&apos;").utf8)
                        default: out.append(inner)
                        }
                    }
                    index = end + 3
                } else {
                    copy(through: "]]>")
                }
            } else if byte == UInt8(ascii: "<") && at("<!--") {
                copy(through: "-->")
            } else if byte == UInt8(ascii: "<") && at("<?") {
                copy(through: "?>")
            } else if byte == UInt8(ascii: "&") {
                let (replacement, kind, length) = reference(bytes, at: index)
                if let kind { repairs.insert(kind) }
                out += replacement
                index += length
            } else {
                out.append(byte)
                index += 1
            }
        }
        return (Data(out), repairs)
    }

    /// A C0 control character XML 1.0 allows nowhere (all but tab, line feed and carriage return).
    static func isControl(_ byte: UInt8) -> Bool {
        byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
    }

    /// `bytes` without those characters; as they are when the document is UTF-16 or UTF-32
    /// without a byte-order mark (its first character has a zero byte), where a zero is half of
    /// every ASCII letter.
    static func withoutControls(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 2, bytes[0] != 0, bytes[1] != 0 else { return bytes }
        guard bytes.contains(where: isControl) else { return bytes }
        return bytes.filter { !isControl($0) }
    }

    /// What `&…` at `index` becomes: itself when it is a reference XML knows, a character
    /// reference for an HTML entity, or `&amp;` for a stray ampersand; and how many bytes it took.
    static func reference(_ bytes: [UInt8], at index: Int) -> ([UInt8], FeedRepair?, Int) {
        var end = index + 1
        while end < bytes.count, end - index <= 40, bytes[end] != UInt8(ascii: ";"),
              bytes[end] == UInt8(ascii: "#") || (bytes[end] < 0x80 && (Character(UnicodeScalar(bytes[end])).isLetter || Character(UnicodeScalar(bytes[end])).isNumber)) {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > index + 1 else { return (Array("&amp;".utf8), .bareAmpersands, 1) }
        let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        let whole = Array(bytes[index...end])
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16) != nil ? (whole, nil, whole.count) : (Array("&amp;".utf8), .bareAmpersands, 1)
        }
        if name.hasPrefix("#") {
            return UInt32(name.dropFirst()) != nil ? (whole, nil, whole.count) : (Array("&amp;".utf8), .bareAmpersands, 1)
        }
        if ["amp", "lt", "gt", "quot", "apos"].contains(name) { return (whole, nil, whole.count) }
        if let entity = name.withCString({ htmlEntityLookup(UnsafeRawPointer($0).assumingMemoryBound(to: xmlChar.self)) }) {
            return (Array("&#\(entity.pointee.value);".utf8), .htmlEntities, whole.count)
        }
        return (Array("&amp;".utf8), .bareAmpersands, 1)
    }

    /// The document as UTF-8: as it is when it already is, or when it declares another encoding
    /// (libxml2 reads declared encodings itself); UTF-16 by its byte-order mark; UTF-8 with a few
    /// stray bytes with those replaced (U+FFFD); else the Windows code page its bytes look like.
    static func utf8(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return String(data: Data(bytes), encoding: .utf16).map { Array($0.utf8) }
        }
        if String(validating: bytes, as: UTF8.self) != nil { return bytes }
        // The declaration, wherever it starts in the first kilobyte (text may come before it).
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self)
        let declared = head.range(of: #"<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']"#, options: .regularExpression)
            .flatMap { match -> String? in
                let text = head[match]
                guard let attribute = text.range(of: #"encoding\s*=\s*["'][^"']+["']"#, options: .regularExpression),
                      let value = text[attribute].range(of: #"["'][^"']+["']"#, options: .regularExpression) else { return nil }
                return String(text[value].dropFirst().dropLast()).lowercased()
            }
        if let declared, !["utf-8", "utf8"].contains(declared) { return bytes }
        // Mostly UTF-8 (its letters over 0x80 decode): only the stray bytes are replaced.
        let lenient = String(decoding: bytes, as: UTF8.self)
        let replaced = lenient.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
        let decoded = lenient.unicodeScalars.filter { $0.value > 0x7F && $0 != "\u{FFFD}" }.count
        if decoded >= replaced { return Array(lenient.utf8) }
        // Not UTF-8: in windows-1251 every Cyrillic letter is a byte over 0x80, so they come in
        // runs (whole words); in windows-1252 an accented letter mostly stands among ASCII ones.
        var high = 0, inRuns = 0
        for (index, byte) in bytes.enumerated() where byte >= 0x80 {
            high += 1
            if (index > 0 && bytes[index - 1] >= 0x80) || (index + 1 < bytes.count && bytes[index + 1] >= 0x80) { inRuns += 1 }
        }
        let encoding: String.Encoding = high > 0 && Double(inRuns) / Double(high) > 0.5 ? .windowsCP1251 : .windowsCP1252
        guard var text = String(data: Data(bytes), encoding: encoding) else { return Array(lenient.utf8) }
        // The declaration, if any, now says UTF-8.
        if let encodingRange = text.range(of: #"(?<=<\?xml)[^>]*?encoding\s*=\s*["'][^"']*["']"#, options: .regularExpression),
           text.distance(from: text.startIndex, to: encodingRange.lowerBound) < 1024,
           let attribute = text[encodingRange].range(of: #"encoding\s*=\s*["'][^"']*["']"#, options: .regularExpression) {
            text.replaceSubrange(attribute, with: "encoding=\"UTF-8\"")
        }
        return Array(text.utf8)
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
