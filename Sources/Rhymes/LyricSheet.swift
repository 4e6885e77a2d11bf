import Foundation

/// A song to take away: as plain text, or as a printable PDF lyric sheet with each line's rhyme
/// scheme letter and syllable count in the margin.
public enum LyricSheet {
    /// The title, a blank line, then the lyrics as written (line ends as `\n`).
    public static func text(title: String, lyrics: String) -> String {
        let body = lyrics.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return title + "\n\n" + body + (body.hasSuffix("\n") || body.isEmpty ? "" : "\n")
    }

    /// An A4 lyric sheet: the title, then each line with its scheme letter and syllables beside
    /// it (blank lines kept as stanza breaks), long lines wrapped, as many pages as it takes.
    /// Set in Helvetica with the Windows-1252 character set; a character outside it prints as "?".
    public static func pdf(title: String, analysis: LyricsAnalysis) -> Data {
        var writer = PDFWriter()
        var page = writer.newPage()
        var y = PDFWriter.top
        func line(_ text: String, size: Double, bold: Bool = false, x: Double = PDFWriter.left) {
            page.text(text, x: x, y: y, size: size, bold: bold)
        }
        func advance(_ by: Double) {
            y -= by
            if y < PDFWriter.bottom {
                writer.finish(page)
                page = writer.newPage()
                y = PDFWriter.top
            }
        }
        for piece in wrap(title, width: 50) {
            line(piece, size: 18, bold: true)
            advance(24)
        }
        advance(10)
        for entry in analysis.lines {
            let text = entry.text.trimmingCharacters(in: .whitespaces)
            if text.isEmpty {
                advance(10)
                continue
            }
            let margin = [entry.scheme, entry.syllables > 0 ? String(entry.syllables) : nil].compactMap { $0 }.joined(separator: "  ")
            page.text(margin, x: PDFWriter.left - 46, y: y, size: 8, gray: 0.45)
            for (index, piece) in wrap(text, width: 82).enumerated() {
                if index > 0 { advance(15) }
                line(piece, size: 11)
            }
            advance(15)
        }
        writer.finish(page)
        return writer.document()
    }

    /// `text` cut at spaces into pieces of at most `width` characters (a longer word is cut).
    static func wrap(_ text: String, width: Int) -> [String] {
        var pieces: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            var word = String(word)
            while word.count > width {
                if !current.isEmpty { pieces.append(current); current = "" }
                pieces.append(String(word.prefix(width)))
                word = String(word.dropFirst(width))
            }
            if current.isEmpty { current = word } else if current.count + 1 + word.count <= width { current += " " + word } else {
                pieces.append(current)
                current = word
            }
        }
        pieces.append(current)
        return pieces
    }
}

/// The least of PDF 1.4 a text sheet needs: pages of text in the standard Helvetica faces, and a
/// cross-reference table with each object's byte offset.
struct PDFWriter {
    static let width = 595.0, height = 842.0
    static let left = 96.0, top = 770.0, bottom = 60.0

    struct Page {
        var content = ""

        mutating func text(_ text: String, x: Double, y: Double, size: Double, bold: Bool = false, gray: Double = 0) {
            let font = bold ? "F2" : "F1"
            content += String(format: "BT %.2f g /", gray) + font + String(format: " %.1f Tf %.2f %.2f Td (", size, x, y) + PDFWriter.escape(text) + ") Tj ET\n"
        }
    }

    private var objects: [Data] = []
    private var pages: [Int] = []

    func newPage() -> Page { Page() }

    /// Adds a finished page (its content stream and its page object).
    mutating func finish(_ page: Page) {
        let stream = Data(page.content.utf8)
        objects.append(Data("<< /Length \(stream.count) >>\nstream\n".utf8) + stream + Data("\nendstream".utf8))
        let contentID = objects.count + 3   // objects 1–3 are the catalog, the page tree and the fonts
        objects.append(Data("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(Int(Self.width)) \(Int(Self.height))] /Resources 3 0 R /Contents \(contentID) 0 R >>".utf8))
        pages.append(objects.count + 3)
    }

    /// The whole file.
    func document() -> Data {
        let head: [Data] = [
            Data("<< /Type /Catalog /Pages 2 0 R >>".utf8),
            Data("<< /Type /Pages /Kids [\(pages.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>".utf8),
            Data("<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> /F2 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >> >> >>".utf8),
        ]
        var out = Data("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        for (index, body) in (head + objects).enumerated() {
            offsets.append(out.count)
            out += Data("\(index + 1) 0 obj\n".utf8) + body + Data("\nendobj\n".utf8)
        }
        let xref = out.count
        out += Data("xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { out += Data(String(format: "%010d 00000 n \n", offset).utf8) }
        out += Data("trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// A PDF string's inside in Windows-1252: backslash and parentheses escaped, bytes past
    /// ASCII as octal escapes, and characters the set lacks as "?".
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            guard let bytes = String(character).data(using: .windowsCP1252), bytes.count == 1, let byte = bytes.first else {
                out += "?"
                continue
            }
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"): out += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: out += String(UnicodeScalar(byte))
            default: out += String(format: "\\%03o", byte)
            }
        }
        return out
    }
}
