import Foundation

/// A style laid over a stretch of an article's plain text.
public struct FormattingSpan: Sendable, Equatable, Codable, Hashable {
    public enum Style: String, Sendable, Codable, Hashable {
        case bold, italic, link, heading, quote, listItem, code
    }

    /// Where the stretch starts and how long it is, in UTF-16 code units of the plain text (the
    /// units a browser indexes strings by: `text.slice(location, location + length)` in
    /// JavaScript is the stretch).
    public var location: Int
    public var length: Int
    public var style: Style
    /// The link's address (absolute), for `.link`.
    public var url: String?
    /// 1–6, for `.heading`.
    public var level: Int?

    public init(location: Int, length: Int, style: Style, url: String? = nil, level: Int? = nil) {
        (self.location, self.length, self.style, self.url, self.level) = (location, length, style, url, level)
    }
}

/// A part of a long article, from one heading to the next: a stretch of the whole text.
public struct ArticleChapter: Sendable, Equatable, Codable {
    public var title: String
    /// In UTF-16 code units of the whole text, like the spans.
    public var location: Int
    public var length: Int
}

/// Plain text (what the voice reads) with the spans that style it, made once: nothing changes
/// the text after a span is made, so the offsets stay true.
struct RichTextBuilder {
    private(set) var text = ""
    /// UTF-16 length of `text`, kept as it grows.
    private(set) var utf16Count = 0
    private(set) var spans: [FormattingSpan] = []
    /// Headings as they were met: (title, level, start).
    private(set) var headings: [(title: String, level: Int, location: Int)] = []
    private var pendingBreak = 0        // 0 none, 1 line, 2 paragraph
    private var pendingSpace = false

    /// The page being added; a book's builder is handed one page after another.
    var document: HTMLDocument
    var base: URL?

    init(document: HTMLDocument, base: URL?) {
        self.document = document
        self.base = base
    }

    static let inlineBreaks: Set<String> = ["br"]

    mutating func append(_ string: String) {
        guard !string.isEmpty else { return }
        if !text.isEmpty {
            if pendingBreak == 2 { raw("\n\n") } else if pendingBreak == 1 { raw("\n") } else if pendingSpace { raw(" ") }
        }
        pendingBreak = 0
        pendingSpace = false
        raw(string)
    }

    private mutating func raw(_ string: String) {
        text += string
        utf16Count += string.utf16.count
    }

    mutating func breakBlock() { if !text.isEmpty { pendingBreak = 2 } }
    mutating func breakLine() { if !text.isEmpty { pendingBreak = max(pendingBreak, 1) } }

    /// Adds the text under `index` (in page order, whitespace collapsed except in `pre`).
    mutating func add(_ index: Int) {
        // An explicit stack of (node, entering?) so any depth is walked without recursion; a
        // span starts where its element's first character lands and ends after its last.
        enum Step { case enter(Int, preformatted: Bool), exit(Int) }
        var stack: [Step] = [.enter(index, preformatted: false)]
        while let step = stack.popLast() {
            switch step {
            case let .enter(current, preformatted):
                let node = document[current]
                guard !node.removed else { continue }
                if node.kind == .text {
                    addText(node.text, preformatted: preformatted)
                    continue
                }
                if node.name == "br" {   // one is a new line, two in a row a new paragraph
                    if !text.isEmpty { pendingBreak = pendingBreak >= 1 ? 2 : 1 }
                    continue
                }
                if node.name == "img" || node.name == "hr" { if node.name == "hr" { breakBlock() }; continue }
                if Extractor.blocks.contains(node.name), !["td", "th"].contains(node.name) {
                    if ["li", "tr", "dt", "dd"].contains(node.name) { breakLine() } else { breakBlock() }
                }
                if ["td", "th"].contains(node.name), pendingBreak == 0, !text.isEmpty, document[node.parent].children.first(where: { document[$0].kind == .element }) != current {
                    pendingSpace = false
                    append(",")
                    pendingSpace = true
                }
                let inPre = preformatted || node.name == "pre"
                // Left after its children; where its text starts is marked when the first of it lands.
                stack.append(.exit(current))
                for child in node.children.reversed() { stack.append(.enter(child, preformatted: inPre)) }
                startMarks.append(nil)
            case let .exit(current):
                let node = document[current]
                let start = startMarks.removeLast() ?? utf16Count
                if utf16Count > start, let style = Self.style(of: node.name) {
                    var span = FormattingSpan(location: start, length: utf16Count - start, style: style)
                    if style == .link {
                        guard let href = node.attributes["href"], let url = Self.resolve(href, base: base) else { finishBlock(node.name); continue }
                        span.url = url
                    }
                    if style == .heading {
                        let level = Int(String(node.name.dropFirst())) ?? 2
                        span.level = level
                        headings.append((PlainTextLine.of(String(text.utf16.dropFirst(start)) ?? ""), level, start))
                    }
                    spans.append(span)
                }
                finishBlock(node.name)
            }
        }
    }

    /// For each element entered and not yet left: where its first character landed (nil until one did).
    private var startMarks: [Int?] = []

    private mutating func finishBlock(_ name: String) {
        if Extractor.blocks.contains(name), !["td", "th"].contains(name) {
            if ["li", "tr", "dt", "dd"].contains(name) { breakLine() } else { breakBlock() }
        }
    }

    private mutating func addText(_ string: String, preformatted: Bool) {
        if preformatted {
            let lines = string.replacingOccurrences(of: "\r\n", with: "\n")
            if !lines.isEmpty { markStarts(); append(lines) }
            return
        }
        var leading = false, trailing = false
        if let first = string.unicodeScalars.first, PlainTextLine.isSpace(first) { leading = true }
        if let last = string.unicodeScalars.last, PlainTextLine.isSpace(last) { trailing = true }
        let words = PlainTextLine.words(string)
        if leading { pendingSpace = true }
        guard !words.isEmpty else { return }
        markStarts()
        append(words.joined(separator: " "))
        if trailing { pendingSpace = true }
    }

    /// Every open element that has no text yet starts where the next text lands.
    private mutating func markStarts() {
        var separator = 0
        if !text.isEmpty { separator = pendingBreak == 2 ? 2 : pendingBreak == 1 ? 1 : pendingSpace ? 1 : 0 }
        for index in startMarks.indices.reversed() {
            guard startMarks[index] == nil else { break }
            startMarks[index] = utf16Count + separator
        }
    }

    static func style(of name: String) -> FormattingSpan.Style? {
        switch name {
        case "b", "strong": .bold
        case "i", "em", "cite", "dfn": .italic
        case "a": .link
        case "h1", "h2", "h3", "h4", "h5", "h6": .heading
        case "blockquote", "q": .quote
        case "li": .listItem
        case "code", "pre", "kbd", "samp": .code
        default: nil
        }
    }

    /// An absolute http(s) or mailto address for `href`; nil for scripts and fragments.
    static func resolve(_ href: String, base: URL?) -> String? {
        let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        guard let url = URL(string: trimmed, relativeTo: base)?.absoluteURL, let scheme = url.scheme?.lowercased(),
              ["http", "https", "mailto"].contains(scheme) else { return nil }
        // A web address names a host ("https:?/example.org" does not).
        if scheme != "mailto", url.host?.isEmpty ?? true { return nil }
        return url.absoluteString
    }
}
