import AudioRender
import Foundation
@testable import Reader
import Testing

@Suite("Rich text: plain text with exact spans")
struct SpanTests {
    func article(_ body: String, url: String = "https://example.org/a/b.html") throws -> ExtractedArticle {
        try Reader.extract(html: Data("<html><head><title>T</title></head><body><article>\(body)</article></body></html>".utf8), url: URL(string: url))
    }

    /// The stretch of `text` a span covers, as the browser would slice it (UTF-16).
    func slice(_ text: String, _ span: FormattingSpan) -> String {
        let units = Array(text.utf16)
        return String(decoding: units[span.location..<span.location + span.length], as: UTF16.self)
    }

    @Test("bold, italic, links, headings, quotes, list items and code lie over the text they style")
    func styles() throws {
        let page = try article("""
            <h2>The  river</h2>
            <p>It was <b>very</b> <em>quiet</em> by the <a href="/water">water's edge</a>, and the <code>code</code> ran.</p>
            <blockquote><p>A quote, spoken.</p></blockquote>
            <ul><li>one thing</li><li>another <strong>thing</strong></li></ul>
            <pre>let x = 1
              indented</pre>
            """)
        #expect(page.text == "The river\n\nIt was very quiet by the water's edge, and the code ran.\n\nA quote, spoken.\n\none thing\nanother thing\n\nlet x = 1\n  indented")
        let styled = page.spans.map { ($0.style, slice(page.text, $0)) }
        #expect(styled.contains { $0 == (.heading, "The river") })
        #expect(styled.contains { $0 == (.bold, "very") })
        #expect(styled.contains { $0 == (.italic, "quiet") })
        #expect(styled.contains { $0 == (.link, "water's edge") })
        #expect(styled.contains { $0 == (.code, "code") })
        #expect(styled.contains { $0 == (.quote, "A quote, spoken.") })
        #expect(styled.contains { $0 == (.listItem, "one thing") })
        #expect(styled.contains { $0 == (.listItem, "another thing") })
        #expect(styled.contains { $0 == (.bold, "thing") })
        #expect(page.spans.first { $0.style == .link }?.url == "https://example.org/water")
        #expect(page.spans.first { $0.style == .heading }?.level == 2)
    }

    static let words = ["café", "cafe\u{301}", "👩‍👩‍👧", "🇫🇷", "日本語の文", "中文", "שלום", "مرحبا", "ok", "𝄞", "e\u{301}\u{302}", "Ⅻ", "ﬁne", "נְשָׁמָה", "x&amp;y", "«quoted»"]

    /// Random inline markup over words from every script and emoji sequence; each element's
    /// expected text, in the order elements close.
    static func fragment(_ generator: inout SeededGenerator, depth: Int = 0, inLink: Bool = false) -> (html: String, text: [String], spans: [(FormattingSpan.Style, String)]) {
        var html = "", words: [String] = [], spans: [(FormattingSpan.Style, String)] = []
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            if depth < 3 && Bool.random(using: &generator) {
                // (A link inside a link is not HTML: a parser closes the first.)
                let tags = [("b", FormattingSpan.Style.bold), ("em", .italic), ("code", .code), ("strong", .bold)] + (inLink ? [] : [("a href=\"/x\"", .link)])
                let (tag, style) = tags.randomElement(using: &generator)!
                let inner = fragment(&generator, depth: depth + 1, inLink: inLink || style == .link)
                html += "<\(tag)>\(inner.html)</\(tag.split(separator: " ")[0])> "
                words += inner.text
                spans += inner.spans
                spans.append((style, inner.text.joined(separator: " ")))
            } else {
                let word = Self.words.randomElement(using: &generator)!
                html += word + (Bool.random(using: &generator) ? " " : "\n  ")
                words.append(word.replacingOccurrences(of: "&amp;", with: "&"))
            }
        }
        return (html, words, spans)
    }

    @Test("over emoji, combining marks, CJK and right-to-left text the offsets never drift (400 random paragraphs)")
    func property() throws {
        var generator = SeededGenerator(seed: 2026)
        for round in 0..<400 {
            let paragraphs = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Self.fragment(&generator) }
            let page = try article(paragraphs.map { "<p>\($0.html)</p>" }.joined(separator: "\n"))
            #expect(page.text == paragraphs.map { $0.text.joined(separator: " ") }.joined(separator: "\n\n"), "round \(round)")
            let expected = paragraphs.flatMap(\.spans)
            let found = page.spans.map { ($0.style, slice(page.text, $0)) }
            #expect(found.count == expected.count, "round \(round)")
            for (got, want) in zip(found, expected) { #expect(got == want, "round \(round)") }
            // Every span lies inside the text, on whole characters as JavaScript counts them.
            for span in page.spans { #expect(span.location >= 0 && span.location + span.length <= page.text.utf16.count) }
        }
    }
}
