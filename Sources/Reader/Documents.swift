#if canImport(AudioRender)
import AudioRender
#endif
import Foundation

/// Documents that are not web pages, read into the same article shape: plain text files in
/// whatever encoding they came in, and PDFs through poppler's `pdftotext`.
public enum Documents {
    /// A block of a document: a heading (with its level) or a paragraph.
    struct Block: Equatable {
        var text: String
        var heading: Int?
    }

    /// The article from blocks: paragraphs apart by a blank line, headings as spans, chapters at
    /// the headings of a long piece.
    static func article(_ blocks: [Block], title: String, source: String) throws -> ExtractedArticle {
        var text = "", units = 0
        var spans: [FormattingSpan] = []
        var headings: [(title: String, level: Int, location: Int)] = []
        for block in blocks where !block.text.isEmpty {
            if !text.isEmpty { text += "\n\n"; units += 2 }
            let length = block.text.utf16.count
            if let level = block.heading {
                spans.append(FormattingSpan(location: units, length: length, style: .heading, level: level))
                headings.append((block.text, level, units))
            }
            text += block.text
            units += length
        }
        guard !text.isEmpty else { throw ReaderError.noArticle }
        return ExtractedArticle(source: source, title: title, byline: nil, siteName: nil, published: nil, language: nil, leadImage: nil,
                                text: text, spans: spans, chapters: Reader.chapters(length: units, headings: headings, title: title))
    }

    // MARK: - Plain text

    /// Text bytes as a string: by their byte-order mark, else UTF-16 when every other byte is
    /// zero, else UTF-8 when they are valid UTF-8, else Windows-1252 (which reads Latin-1 too).
    /// Damaged UTF-16 (a lone surrogate, an odd last byte) still reads, the damage as U+FFFD.
    public static func decode(_ data: Data) -> String {
        let bytes = [UInt8](data.prefix(4))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return String(decoding: data.dropFirst(3), as: UTF8.self) }
        if bytes.starts(with: [0xFF, 0xFE]) { return utf16(data.dropFirst(2), bigEndian: false) }
        if bytes.starts(with: [0xFE, 0xFF]) { return utf16(data.dropFirst(2), bigEndian: true) }
        // UTF-16 before UTF-8: UTF-16 without a mark whose letters are all ASCII is valid UTF-8 too,
        // a NUL after every letter (found by the text fuzz harness's seed); real UTF-8 text has no NULs.
        let sample = data.prefix(4096)
        if sample.count >= 4 {
            let evens = stride(from: 0, to: sample.count, by: 2).filter { sample[sample.startIndex + $0] == 0 }.count
            let odds = stride(from: 1, to: sample.count, by: 2).filter { sample[sample.startIndex + $0] == 0 }.count
            let half = sample.count / 2
            if odds > half * 8 / 10 { return utf16(data, bigEndian: false) }
            if evens > half * 8 / 10 { return utf16(data, bigEndian: true) }
        }
        if let text = String(data: data, encoding: .utf8) { return text }
        return String(data: data, encoding: .windowsCP1252) ?? String(decoding: data, as: UTF8.self)
    }

    /// UTF-16 without its mark, read leniently: Foundation's decoder gives up on the whole text at
    /// one lone surrogate or an odd last byte (found by the text fuzz harness,
    /// Fuzz/corpus/text/crash-utf16-lone-surrogate), where this reads each as U+FFFD.
    static func utf16(_ data: Data, bigEndian: Bool) -> String {
        let bytes = [UInt8](data)
        let (high, low) = bigEndian ? (0, 1) : (1, 0)
        var units: [UInt16] = stride(from: 0, to: bytes.count - 1, by: 2).map { (index: Int) -> UInt16 in
            UInt16(bytes[index + high]) << 8 | UInt16(bytes[index + low])
        }
        if bytes.count % 2 == 1 { units.append(0xFFFD) }
        return String(decoding: units, as: UTF16.self)
    }

    /// A line that names a part of a book ("Chapter 3", "PART TWO", "II.").
    static func isChapterLine(_ line: String) -> Bool {
        let words = line.split(separator: " ")
        guard !words.isEmpty, words.count <= 8, line.count <= 60, !line.hasSuffix(",") else { return false }
        let first = words[0].lowercased()
        if ["chapter", "part", "book", "prologue", "epilogue", "interlude", "chapitre", "kapitel", "capítulo"].contains(first) { return true }
        let roman = Set("IVXLC.")
        return words.count == 1 && line.count <= 6 && line.allSatisfy { roman.contains($0) }
    }

    /// A plain text file: paragraphs at blank lines, hard-wrapped lines joined (a line that ends
    /// well short of its neighbours', as in verse or lists, keeps its break), chapter lines as
    /// headings. The title is a short first line standing alone, else the file's name.
    /// - Parameter findTitle: whether a short first line is the title (false when the person named it).
    public static func plainText(_ data: Data, name: String, findTitle: Bool = true) throws -> ExtractedArticle {
        guard !data.isEmpty else { throw ReaderError.empty }
        let text = decode(data).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var paragraphs: [[String]] = [[]]
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = PlainTextLine.of(String(raw))
            if line.isEmpty { if !(paragraphs.last?.isEmpty ?? true) { paragraphs.append([]) } } else { paragraphs[paragraphs.count - 1].append(line) }
        }
        paragraphs.removeAll { $0.isEmpty }
        var blocks: [Block] = []
        var title = (name as NSString).deletingPathExtension
        if findTitle, let first = paragraphs.first, first.count == 1, first[0].count <= 100, paragraphs.count > 1, !isChapterLine(first[0]) {
            title = first[0]
            paragraphs.removeFirst()
        }
        for lines in paragraphs {
            if lines.count == 1, isChapterLine(lines[0]) { blocks.append(Block(text: lines[0], heading: 2)); continue }
            blocks.append(Block(text: joinLines(lines), heading: nil))
        }
        return try article(blocks, title: title, source: name)
    }

    /// Lines of one paragraph as prose: wrapped lines joined by a space (or without the hyphen a
    /// word was broken at), short lines (verse, lists) kept on their own.
    static func joinLines(_ lines: [String]) -> String {
        let longest = lines.map(\.count).max() ?? 0
        var out = ""
        for (index, line) in lines.enumerated() {
            guard index > 0 else { out = line; continue }
            let previous = lines[index - 1]
            if longest >= 40 && previous.count >= longest * 6 / 10 { continueLine(&out, with: line) } else { out += "\n" + line }
        }
        return out
    }

    /// `text` going on with the next line of wrapped prose: after a space, or without the hyphen
    /// a word was broken at ("wonder-" and "ful").
    static func continueLine(_ text: inout String, with line: String) {
        if text.hasSuffix("-"), let before = text.dropLast().last, before.isLetter, line.first?.isLowercase == true {
            text.removeLast()
            text += line
        } else {
            text += " " + line
        }
    }

    // MARK: - PDF

    /// A PDF's text through poppler's `pdftotext`: pages joined back into paragraphs (a
    /// paragraph that runs over a page break is one), words broken at line ends mended, and the
    /// running headers, footers and page numbers that repeat from page to page dropped.
    /// - Throws: `ReaderError.unreadable` when the file is not a PDF or has no text (a scan).
    public static func pdf(_ file: URL, name: String, runner: CommandRunner = .live) async throws -> ExtractedArticle {
        let handle = try? FileHandle(forReadingFrom: file)
        let head = try? handle?.read(upToCount: 5)
        try? handle?.close()
        guard head == Data("%PDF-".utf8) else { throw ReaderError.unreadable("the file is not a PDF") }
        return try await pdfText(file, name: name, runner: runner)
    }

    /// A file known to start as a PDF, through `pdftotext` and `pdfinfo`.
    static func pdfText(_ file: URL, name: String, runner: CommandRunner = .live) async throws -> ExtractedArticle {
        let text: CommandRunner.Result
        do {
            text = try await runner.run("pdftotext", ["-q", "-enc", "UTF-8", "-eol", "unix", file.path, "-"], nil)
        } catch AudioRenderError.toolMissing {
            throw ReaderError.unreadable("pdftotext (poppler-utils) is not installed")
        }
        guard text.status == 0 else { throw ReaderError.unreadable("pdftotext could not read it (status \(text.status)); it may be damaged or locked") }
        let blocks = pdfBlocks(String(decoding: text.output, as: UTF8.self).components(separatedBy: "\u{0C}"))
        guard !blocks.isEmpty else { throw ReaderError.unreadable("the PDF has no text to read (a scanned document needs text recognition first)") }
        // The document's own title, when pdfinfo finds one.
        let info = try? await runner.run("pdfinfo", ["-enc", "UTF-8", file.path], nil)
        let title = info.flatMap { info in
            String(decoding: info.output, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Title:") }
                .map { $0.dropFirst(6).trimmingCharacters(in: .whitespaces) }
        }
        return try article(blocks, title: title.flatMap { $0.isEmpty ? nil : $0 } ?? (name as NSString).deletingPathExtension, source: name)
    }

    /// Paragraphs from `pdftotext`'s pages. Its lines are wrapped prose: a paragraph ends at a
    /// blank line, or at a line that stops well short of the page's width with a sentence's end;
    /// a short line standing alone that reads as a title is a heading.
    static func pdfBlocks(_ pages: [String]) -> [Block] {
        let lined = pages.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map { PlainTextLine.of(String($0)) } }
        // A line that comes back at the top or bottom of most pages (digits aside) is furniture.
        func shape(_ line: String) -> String { String(line.map { $0.isNumber ? "#" : $0 }) }
        var counts: [String: Int] = [:]
        for lines in lined {
            let filled = lines.filter { !$0.isEmpty }
            for line in Set(filled.prefix(2) + filled.suffix(2)) { counts[shape(line), default: 0] += 1 }
        }
        let pagesWithText = lined.filter { $0.contains { !$0.isEmpty } }.count
        let furniture = Set(counts.filter { pagesWithText >= 3 && $0.value >= max(2, pagesWithText / 2) }.keys)
        var all: [String] = []
        for page in lined {
            let filled = page.enumerated().filter { !$0.element.isEmpty }.map(\.offset)
            let edges = Set(filled.prefix(2) + filled.suffix(2))
            var kept = page.enumerated().filter { index, line in
                !(edges.contains(index) && !line.isEmpty && (furniture.contains(shape(line)) || line.allSatisfy(\.isNumber)))
            }.map(\.element)
            // Blank lines at a page's top and bottom are its margins, not paragraph breaks.
            while kept.first?.isEmpty == true { kept.removeFirst() }
            while kept.last?.isEmpty == true { kept.removeLast() }
            all += kept
        }
        let lengths = all.filter { !$0.isEmpty }.map(\.count).sorted()
        guard !lengths.isEmpty else { return [] }
        let width = lengths[lengths.count * 8 / 10]
        var blocks: [Block] = []
        var paragraph: [String] = []
        func close() {
            guard !paragraph.isEmpty else { return }
            var text = paragraph[0]
            for line in paragraph.dropFirst() { continueLine(&text, with: line) }
            blocks.append(Block(text: text, heading: nil))
            paragraph = []
        }
        for line in all {
            if line.isEmpty { close(); continue }
            let short = line.count < width * 7 / 10
            let words = line.split(separator: " ").count
            if paragraph.isEmpty, short, isChapterLine(line)
                || (words <= 8 && line.first?.isUppercase == true && !".,;:!?".contains(line.last ?? ".")) {
                blocks.append(Block(text: line, heading: 2))
                continue
            }
            paragraph.append(line)
            // Ragged lines run 75–100% of the width; a sentence's end well short of it ends the paragraph.
            if line.count < width * 8 / 10, let end = line.last, ".!?\"”’)".contains(end) { close() }
        }
        close()
        return blocks
    }
}

// MARK: - Any file

extension Documents {
    /// What a file is, by its first bytes (its name only breaks ties between kinds of text).
    public enum Kind: String, Sendable {
        case html, txt, epub, pdf
    }

    /// The kind of a file from its opening bytes and name.
    /// - Throws: `ReaderError.unreadable` for a file whose bytes are not what its name says
    ///   (a `.pdf` that is no PDF, an `.epub` that is no zip) or that is not text at all.
    public static func kind(of head: Data, name: String) throws -> Kind {
        let bytes = [UInt8](head.prefix(4096))
        let claimed = (name as NSString).pathExtension.lowercased()
        let isPDF = bytes.starts(with: Array("%PDF-".utf8))
        let isZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        if isPDF { return .pdf }
        if isZip { return .epub }
        if claimed == "pdf" { throw ReaderError.unreadable("“\(name)” is named as a PDF but is not one (a PDF starts with %PDF-)") }
        if claimed == "epub" { throw ReaderError.unreadable("“\(name)” is named as an EPUB but is not one (an EPUB is a zip file)") }
        // Text has no NUL bytes, unless it is UTF-16 (which has them in every other byte).
        let utf16 = bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF])
            || (bytes.count >= 4 && (bytes[1] == 0 && bytes[3] == 0 || bytes[0] == 0 && bytes[2] == 0))
        if !utf16, bytes.contains(0) {
            throw ReaderError.unreadable("“\(name)” is not a web page, text, EPUB or PDF file (it holds binary data)")
        }
        if ["html", "htm", "xhtml"].contains(claimed) { return .html }
        if ["txt", "text", "md"].contains(claimed) { return .txt }
        let opening = decode(Data(bytes.prefix(1024))).lowercased()
        return ["<!doctype html", "<html", "<head", "<body", "<article", "<p>", "<div"].contains(where: opening.contains) ? .html : .txt
    }

    /// A web page is read at most this large, whether fetched or from a file.
    public static let maximumPageBytes = 10 << 20
    /// A document (a book, a PDF) at most this large.
    public static let maximumDocumentBytes = 200 << 20

    /// Reads a file of any kind Reverie takes (a web page, text, EPUB or PDF).
    /// - Parameters:
    ///   - encoding: a web page's character set as its server named it.
    ///   - url: where a web page came from (its links are made absolute against it).
    ///   - progress: how far an EPUB is, (pages read, pages).
    public static func read(_ file: URL, name: String, encoding: String? = nil, url: URL? = nil,
                            progress: (Int, Int) async -> Void = { _, _ in }) async throws -> (article: ExtractedArticle, kind: Kind) {
        let handle = try FileHandle(forReadingFrom: file)
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        try? handle.close()
        guard !head.isEmpty else { throw ReaderError.empty }
        let kind = try kind(of: head, name: name)
        switch kind {
        case .pdf: return (try await pdfText(file, name: name), kind)
        case .epub: return (try await EPUB.read(file, name: name, progress: progress), kind)
        case .txt: return (try plainText(try Data(contentsOf: file), name: name), kind)
        case .html:
            var article = try Reader.extract(html: try Data(contentsOf: file), url: url, encoding: encoding, source: url?.absoluteString ?? name)
            if url == nil, article.title == name { article.title = (name as NSString).deletingPathExtension }
            return (article, kind)
        }
    }

    /// What an address answered: a web page by its `Content-Type` (or, without one, by its
    /// bytes); anything else (a linked PDF, EPUB or text file) read as the file it is.
    public static func read(_ data: Data, name: String, contentType: String?, url: URL?,
                            progress: (Int, Int) async -> Void = { _, _ in }) async throws -> (article: ExtractedArticle, kind: Kind) {
        let encoding = contentType.flatMap(Reader.charset(fromContentType:))
        let type = contentType?.lowercased() ?? ""
        if type.contains("html") || (type.isEmpty && (try? kind(of: data, name: name)) == .html) {
            return (try Reader.extract(html: data, url: url, encoding: encoding, source: url?.absoluteString ?? name), .html)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-document-\(UUID().uuidString)")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await read(file, name: name, encoding: encoding, url: url, progress: progress)
    }
}
