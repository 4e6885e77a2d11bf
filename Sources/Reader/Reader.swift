import Feeds
import Foundation

/// An article read from a page: what the voice reads, how it looks, and what it is.
public struct ExtractedArticle: Sendable, Equatable, Codable {
    /// Where it came from (the address, or the file's name).
    public var source: String
    public var title: String
    public var byline: String?
    public var siteName: String?
    public var published: String?
    public var language: String?
    public var leadImage: String?
    /// The plain text the voice reads: paragraphs apart by a blank line, list items and table
    /// rows on lines of their own.
    public var text: String
    /// Styles over `text`, in UTF-16 code units (see `FormattingSpan`).
    public var spans: [FormattingSpan]
    /// A long article's parts, from heading to heading; one chapter for a short one.
    public var chapters: [ArticleChapter]
}

/// Reads articles out of web pages.
public enum Reader {
    /// A piece longer than this (in UTF-16 units) with headings is split into chapters at them.
    public static let chapterThreshold = 6000
    /// Text shorter than this (in UTF-16 units) is looked for again less strictly.
    static let shortArticle = 500

    /// The article in an HTML page.
    /// - Parameters:
    ///   - url: the page's address: links and images are made absolute against it (or the page's
    ///     own `<base href>`).
    ///   - encoding: the character set the server named, if it did.
    /// - Throws: `ReaderError` for a page that cannot be read or holds no article.
    public static func extract(html data: Data, url: URL? = nil, encoding: String? = nil, source: String? = nil) throws -> ExtractedArticle {
        let document = try HTMLDocument(data, encoding: encoding)
        var base = url
        if let href = document.first("base").flatMap({ document[$0].attributes["href"] }), let resolved = URL(string: href, relativeTo: url) {
            base = resolved.absoluteURL
        }
        let metadata = ArticleMetadata(document, base: base)
        func attempt(dropsUnlikely: Bool) -> RichTextBuilder {
            var extractor = Extractor(document, title: metadata.title)
            extractor.dropsUnlikely = dropsUnlikely
            let body = extractor.prepare()
            let roots = extractor.candidates(in: body)
            extractor.clean(roots)
            var builder = RichTextBuilder(document: extractor.document, base: base)
            for root in roots {
                builder.breakBlock()
                builder.add(root)
            }
            return builder
        }
        var builder = attempt(dropsUnlikely: true)
        // The page's own JSON-LD text, if it declares one.
        let declared = metadata.body.map(paragraphs(ofDeclared:)) ?? ""
        // Too little for an article, and none declared: the element the page marks as its
        // article's body (microdata) as the page has it; else again, keeping the blocks whose
        // names looked unlikely. The longer is kept.
        if builder.utf16Count < Self.shortArticle && declared.isEmpty {
            var second: RichTextBuilder
            // The element the page marks as its article's body (microdata), looked for only here.
            if let marked = document.descendants(of: document.root).first(where: { document.nodes[$0].attributes["itemprop"]?.lowercased() == "articlebody" }) {
                second = RichTextBuilder(document: document, base: base)
                second.add(marked)
            } else {
                second = attempt(dropsUnlikely: false)
            }
            if second.utf16Count > builder.utf16Count { builder = second }
        }
        // The page's own JSON-LD text where the page's elements gave none, or a fragment of it (a
        // page that builds its article with scripts, or hides it from the element scoring).
        /// The article with `text`, under the page's title (else `heading`, else where it came from).
        func article(_ text: String, spans: [FormattingSpan], heading: String?, chapters: (String) -> [ArticleChapter]) -> ExtractedArticle {
            let title = metadata.title ?? heading ?? source ?? url?.absoluteString ?? "Untitled"
            return ExtractedArticle(source: source ?? url?.absoluteString ?? "", title: title, byline: metadata.byline, siteName: metadata.siteName,
                                    published: metadata.published, language: metadata.language, leadImage: metadata.leadImage,
                                    text: text, spans: spans, chapters: chapters(title))
        }
        if !declared.isEmpty && (builder.text.isEmpty || wordCount(builder.text) * 2 < wordCount(declared)) {
            return article(declared, spans: [], heading: nil) { [ArticleChapter(title: $0, location: 0, length: declared.utf16.count)] }
        }
        guard !builder.text.isEmpty else { throw ReaderError.noArticle }
        return article(builder.text, spans: builder.spans, heading: builder.headings.first?.title) {
            chapters(length: builder.utf16Count, headings: builder.headings, title: $0)
        }
    }

    /// JSON-LD's `articleBody` as the voice reads text: its paragraphs (lines, or HTML blocks) apart
    /// by a blank line, markup removed and entities read.
    static func paragraphs(ofDeclared body: String) -> String {
        let lines = body.replacingOccurrences(of: "</?(p|br|div|li|h[1-6]|blockquote)\\b[^>]{0,500}>", with: "\n", options: [.regularExpression, .caseInsensitive])
        return lines.split(whereSeparator: \.isNewline).map { PlainText.fromHTML(String($0)) }.filter { !$0.isEmpty }.joined(separator: "\n\n")
    }

    static func wordCount(_ text: String) -> Int {
        text.split(whereSeparator: { $0.isWhitespace }).count
    }

    /// The character set a `Content-Type` header names (`text/html; charset=ISO-8859-1`).
    public static func charset(fromContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].lowercased() == "charset" else { continue }
            let name = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            return name.isEmpty ? nil : name
        }
        return nil
    }

    /// Chapters at the top level of headings used, for a long piece with at least two of them.
    static func chapters(length: Int, headings: [(title: String, level: Int, location: Int)], title: String) -> [ArticleChapter] {
        guard length > chapterThreshold, let top = headings.map(\.level).min() else {
            return [ArticleChapter(title: title, location: 0, length: length)]
        }
        let marks = headings.filter { $0.level == top }
        guard marks.count >= 2 else { return [ArticleChapter(title: title, location: 0, length: length)] }
        var chapters: [ArticleChapter] = []
        if marks[0].location > 0 { chapters.append(ArticleChapter(title: title, location: 0, length: marks[0].location)) }
        for (index, mark) in marks.enumerated() {
            let end = index + 1 < marks.count ? marks[index + 1].location : length
            chapters.append(ArticleChapter(title: mark.title, location: mark.location, length: end - mark.location))
        }
        return chapters
    }
}
