import Foundation
@testable import Reader
import Testing

/// The fixture pages beside this file: `name.html` and the text a reader should get, `name.txt`.
enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func page(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent("\(name).html")) }
    static func expected(_ name: String) throws -> String { try String(contentsOf: folder.appendingPathComponent("\(name).txt"), encoding: .utf8) }
}

/// Token F1 between two texts (words, case folded), as the benchmark measures it.
func tokenF1(_ got: String, _ want: String) -> Double {
    func tokens(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) { counts[String(word), default: 0] += 1 }
        return counts
    }
    let g = tokens(got), w = tokens(want)
    let common = g.reduce(0) { $0 + min($1.value, w[$1.key] ?? 0) }
    guard common > 0 else { return 0 }
    let precision = Double(common) / Double(g.values.reduce(0, +)), recall = Double(common) / Double(w.values.reduce(0, +))
    return 2 * precision * recall / (precision + recall)
}

@Suite("Article extraction")
struct ExtractionTests {
    static let pages = ["news-with-sidebars", "blog-with-comments", "docs-page", "mostly-links", "paginated-story",
                        "french-news", "japanese-blog", "arabic-article", "old-forum-post", "magazine-sections"]

    @Test("each page shape gives its article's text, and none of the page around it", arguments: pages)
    func shapes(_ name: String) throws {
        let article = try Reader.extract(html: try Fixtures.page(name), url: URL(string: "https://example.org/\(name)"))
        let expected = try Fixtures.expected(name).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tokenF1(article.text, expected) >= 0.98, "\(name):\n\(article.text)")
        for junk in ["Related stories", "Most read", "Subscribe", "comments", "Leave a reply", "Previous", "Next", "Share", "Accueil",
                     "À lire aussi", "最近の記事", "شارك", "cookies", "All rights reserved", "Sunday reading, week", "Archives", "Keep the lights burning", "Post reply", "Inside the labs", "mattress", "newsletter"] {
            #expect(!article.text.contains(junk), "\(name) keeps “\(junk)”")
        }
    }

    @Test("title, byline, site, date, language and lead image come from JSON-LD, OpenGraph, meta tags and the page")
    func metadata() throws {
        let news = try Reader.extract(html: try Fixtures.page("news-with-sidebars"), url: URL(string: "https://courier.example/2026/ferries"))
        #expect(news.title == "Night ferries return to the northern lakes")
        #expect(news.byline == "Maren Holt")
        #expect(news.siteName == "The Lakeside Courier")
        #expect(news.published == "2026-03-14T06:30:00Z")
        #expect(news.language == "en")
        #expect(news.leadImage == "https://courier.example/images/ferry.jpg")
        let blog = try Reader.extract(html: try Fixtures.page("blog-with-comments"))
        #expect(blog.title == "Sourdough at altitude, or how I learned to wait")
        #expect(blog.byline == "Wren")
        #expect(blog.published == "2025-11-02T09:00:00+01:00")
        #expect(blog.language == "en-GB")
        #expect(try Reader.extract(html: try Fixtures.page("japanese-blog")).title == "夜の音を聴く")
        #expect(try Reader.extract(html: try Fixtures.page("docs-page")).title == "Configuring the sleep timer")
        // The title is not read twice: the page's own heading of it is left out of the text.
        #expect(!news.text.contains("Night ferries return"))
    }

    @Test("tables keep their cells, code its lines, quotes their words; a photo's caption goes")
    func kept() throws {
        let news = try Reader.extract(html: try Fixtures.page("news-with-sidebars"))
        #expect(news.text.hasPrefix("After eleven winters without them"))
        #expect(!news.text.contains("The Aurora leaves the harbour"))
        let captioned = try Reader.extract(html: Data(("<html><body><article><p>" + String(repeating: "The ferry crossed the lake at night, slowly. ", count: 4)
            + "</p><div class=\"wp-caption\"><img src=\"a.jpg\"><p class=\"wp-caption-text\">The ferry at the pier. Credit: Harbour Office</p></div><p>"
            + String(repeating: "Its lights shone on the water, and no one spoke. ", count: 4) + "</p></article></body></html>").utf8))
        #expect(!captioned.text.contains("Credit"))
        #expect(captioned.text.contains("no one spoke"))
        #expect(news.spans.contains { $0.style == .quote })
        let docs = try Reader.extract(html: try Fixtures.page("docs-page"))
        #expect(docs.text.contains("timer.fade, 30, Seconds of fade before the end"))
        #expect(docs.text.contains("lantern config set timer.fade 45\nlantern config get timer.fade"))
        #expect(docs.spans.contains { $0.style == .code })
    }

    @Test("a long piece is split into chapters at its headings; a short one is one chapter")
    func chapters() throws {
        let sections = (1...4).map { number in
            "<h2>Part \(number)</h2>" + (1...6).map { "<p>Paragraph \($0) of part \(number): " + String(repeating: "the night is long and the water is calm, ", count: 8) + "</p>" }.joined()
        }.joined()
        let long = try Reader.extract(html: Data("<html><head><title>Four parts</title></head><body><article><p>An opening before the first part, long enough to count as text on its own.</p>\(sections)</article></body></html>".utf8))
        #expect(long.chapters.map(\.title) == ["Four parts", "Part 1", "Part 2", "Part 3", "Part 4"])
        let units = Array(long.text.utf16)
        for chapter in long.chapters.dropFirst() {
            #expect(String(decoding: units[chapter.location..<chapter.location + chapter.length], as: UTF16.self).hasPrefix(chapter.title))
        }
        #expect(long.chapters.last.map { $0.location + $0.length } == units.count)
        let short = try Reader.extract(html: try Fixtures.page("docs-page"))
        #expect(short.chapters.count == 1 && short.chapters[0].length == short.text.utf16.count)
    }

    @Test("the character set comes from the caller (an HTTP header), else the page's meta tag")
    func charsets() throws {
        let latin1 = Data("<html><head><meta charset=\"iso-8859-1\"><title>Caf\u{e9}</title></head><body><p>Un caf\u{e9} au bord de l'eau, tr\u{e8}s calme le soir, quand les bateaux rentrent.</p></body></html>".utf8)
        // The same page written in Latin-1 bytes.
        let bytes = Data(String(decoding: latin1, as: UTF8.self).unicodeScalars.map { UInt8($0.value) })
        #expect(try Reader.extract(html: bytes).text.contains("café au bord"))
        let undeclared = Data(bytes.split(separator: UInt8(ascii: ">"), omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset != 2 }.map { Data($0.element) }.joined(separator: Data(">".utf8)))
        #expect(try Reader.extract(html: undeclared, encoding: "ISO-8859-1").text.contains("très calme"))
        #expect(Reader.charset(fromContentType: "text/html; charset=\"Windows-1252\"") == "Windows-1252")
        #expect(Reader.charset(fromContentType: "text/html") == nil)
    }

    @Test("links become absolute web or mail addresses; a web address without a host is no link (found by the EPUB fuzzer)")
    func links() throws {
        let page = #"<html><body><article><p>Read <a href="https:?/example.org/">the broken one</a>, <a href="/tides">the tides</a>, <a href="mailto:keeper@example.org">the keeper</a> and <a href="javascript:alert(1)">a script</a> in one long enough sentence.</p></article></body></html>"#
        let article = try Reader.extract(html: Data(page.utf8), url: URL(string: "https://coast.example/news/today"))
        #expect(article.spans.filter { $0.style == .link }.compactMap(\.url) == ["https://coast.example/tides", "mailto:keeper@example.org"])
    }

    @Test("hostile pages: deep nesting, entity bombs, 10 MB of divs, nothing at all")
    func hostile() throws {
        // libxml2 stops reading 256 levels down: what is deeper is lost, with a clear error, never a crash.
        let deep = "<p>Near the top, a sentence long enough to be read as a paragraph of text.</p>" + String(repeating: "<div>", count: 100_000)
            + "<p>Deep down, a sentence long enough to be read as a paragraph of text.</p>" + String(repeating: "</div>", count: 100_000)
        #expect(try Reader.extract(html: Data(deep.utf8)).text.contains("Near the top"))
        let shallow = String(repeating: "<div>", count: 200) + "<p>Two hundred levels down, a sentence long enough to be read.</p>" + String(repeating: "</div>", count: 200)
        #expect(try Reader.extract(html: Data(shallow.utf8)).text.contains("Two hundred levels down"))
        let laughs = """
            <!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
            <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">]>
            <html><body><p>&e;&e;&e;&e;&e;&e;&e;&e;&e;&e; and a sentence that is long enough to be read on its own.</p></body></html>
            """
        let bomb = try Reader.extract(html: Data(laughs.utf8))
        #expect(bomb.text.utf8.count < 10_000, "entities were expanded: \(bomb.text.utf8.count) bytes")
        let divs = String(repeating: "<div class=\"x\">cell</div>", count: 400_000)   // about 10 MB
        // Read whole, none of it lost: every cell, a paragraph each.
        let wide = try Reader.extract(html: Data("<html><body>\(divs)</body></html>".utf8))
        #expect(wide.text.count > 0)
        #expect(wide.text.components(separatedBy: "\n\n").count == 400_000 && wide.text.hasPrefix("cell\n\ncell"))
        #expect(throws: ReaderError.empty) { try Reader.extract(html: Data()) }
        #expect(throws: ReaderError.noArticle) { try Reader.extract(html: Data("<html><body><nav><a href=\"/\">Home</a></nav></body></html>".utf8)) }
        let external = "<!DOCTYPE html SYSTEM \"http://169.254.169.254/latest\"><html><body><p>A page that names an outside document type, read without fetching it at all.</p></body></html>"
        #expect(try Reader.extract(html: Data(external.utf8)).text.contains("without fetching"))
    }

    @Test("a page whose elements give no article: the text its JSON-LD declares (articleBody), or the element it marks itemprop=articleBody")
    func declaredBodies() throws {
        // The article is built by scripts: only JSON-LD carries it.
        let declared = """
        <html><head><script type="application/ld+json">{"@type": "NewsArticle", "headline": "Ferries at Dawn",
        "articleBody": "The first ferry leaves at six, when the harbour is still grey.\\nGulls follow it out past the breakwater &amp; the lighthouse."}</script></head>
        <body><div id="app"></div><nav><a href="/">Home</a></nav></body></html>
        """
        let fromJSON = try Reader.extract(html: Data(declared.utf8))
        #expect(fromJSON.title == "Ferries at Dawn")
        #expect(fromJSON.text == "The first ferry leaves at six, when the harbour is still grey.\n\nGulls follow it out past the breakwater & the lighthouse.")
        // A short body the scoring passes over, marked as the article's by microdata.
        let marked = """
        <html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
        <section itemprop="articleBody"><div class="abstract">Tides turn twice a day.</div><div>The moon pulls; the sea answers.</div></section>
        <footer><a href="/about">About</a></footer></body></html>
        """
        let fromMarked = try Reader.extract(html: Data(marked.utf8))
        #expect(fromMarked.text.contains("Tides turn twice a day.") && fromMarked.text.contains("The moon pulls; the sea answers."))
        #expect(!fromMarked.text.contains("About"))
    }

    @Test("an article whose whole body sits in a block named like a widget is found on a second, less strict look; comments stay out even then")
    func secondLook() throws {
        let story = (1...6).map { "<p>Paragraph \($0) of the story about the lighthouse keeper, who counted the ships, the storms, and the quiet nights in between.</p>" }.joined()
        let page = """
        <html><body><nav><a href="/">Home</a></nav>
        <div class="widget-area">\(story)</div>
        <div class="comments-area"><p>What a lovely story, thank you so much for writing it, I read it twice, and then again to my children.</p>
        <p>Another comment, longer than most, about lighthouses, ships, storms, keepers, and everything else the story was about.</p></div>
        </body></html>
        """
        let article = try Reader.extract(html: Data(page.utf8))
        #expect(article.text.contains("Paragraph 1 of the story") && article.text.contains("Paragraph 6 of the story"))
        #expect(!article.text.contains("lovely story") && !article.text.contains("Another comment"))
    }

    @Test("a story laid out in sections of a magazine's design is read whole, but not the other stories' teasers beside it")
    func sections() throws {
        func paragraphs(_ part: Int, _ count: Int) -> String {
            (1...count).map { "<p>Part \(part), paragraph \($0): the tuft cells appeared in the lungs only after the infection, which puzzled the researchers who found them.</p>" }.joined()
        }
        let page = """
        <html><body><div class="shell"><div class="acf">
        <div class="wrap"><div class="inner"><section class="outer"><div class="flex"><div class="col">\(paragraphs(1, 6))</div></div></section></div></div>
        <section class="outer"><div class="flex"><div class="col">\(paragraphs(2, 2))</div></div></section>
        <section class="outer"><div class="flex"><div class="col">\(paragraphs(3, 2))</div></div></section>
        </div>
        <div class="more"><p>The herders had never been protesters until the miners arrived on the land they had always grazed.</p>
        <p>Dozens of bushfires are spreading across the country and burning more than two million acres of forest and farmland.</p></div>
        </div></body></html>
        """
        let text = try Reader.extract(html: Data(page.utf8)).text
        for part in 1...3 { #expect(text.contains("Part \(part), paragraph 2"), "part \(part)") }
        #expect(!text.contains("herders") && !text.contains("bushfires"))
    }

    @Test("the search for a story's other sections stops at its own <article> and needs paragraphs to measure by")
    func sectionsBounded() throws {
        let sentence = "The council met late into the evening, and the harbour master read the figures aloud twice."
        let paragraphs = { (name: String, count: Int) in (1...count).map { "<p>\(name) \($0): \(sentence)</p>" }.joined() }
        // Another story loaded below the first: never part of it.
        let two = """
        <html><body><main><article><h1>Dredging</h1><div class="x1">\(paragraphs("Story A", 4))</div></article>
        <article><h1>Ferries</h1><div class="x1">\(paragraphs("Story B", 3))</div></article></main></body></html>
        """
        let first = try Reader.extract(html: Data(two.utf8)).text
        #expect(first.contains("Story A 4") && !first.contains("Story B"))
        // A story written in divs, beside a note of two paragraphs a level down: the note is not climbed into.
        let divs = (1...5).map { "<div>Line \($0): \(sentence)</div>" }.joined()
        let page = """
        <html><body><div class="x0"><div class="x1">\(divs)</div>
        <div class="x2"><div class="x3"><p>The writer lives by the lake and has covered the harbour for the paper since the old ferries ran.</p>
        <p>Letters to the writer are read, and answered when the ice allows, which in most winters is rarely at all.</p></div></div></div></body></html>
        """
        let text = try Reader.extract(html: Data(page.utf8)).text
        #expect(text.contains("Line 5") && !text.contains("The writer lives"))
    }

    @Test("a Related line in the middle of a story takes only the links after it; a table's caption and a link named comments in a sentence stay")
    func relatedMidway() throws {
        let story = (1...4).map { "<p>Part \($0) of the report on the harbour dredging, with the figures the council gave and what the fishermen said.</p>" }.joined()
        let page = """
        <html><body><article>\(story)
        <p><strong>Related</strong></p><ul><li><a href="/a">Ten harbours to see</a></li><li><a href="/b">The last steam dredger</a></li></ul>
        <p>The rest of the story: the dredging starts in spring, and the fishermen will be paid for the weeks they lose at sea.</p>
        <figure><table><tr><td>Spring</td><td>4 weeks</td></tr></table><figcaption>Table 2: the weeks lost, by season</figcaption></figure>
        <p>Readers left hundreds of <a href="#c">comments</a> below the first report, most of them about the weeks at sea.</p>
        </article></body></html>
        """
        let text = try Reader.extract(html: Data(page.utf8)).text
        #expect(!text.contains("Ten harbours") && !text.contains("steam dredger"))
        #expect(text.contains("The rest of the story"))
        #expect(text.contains("Table 2: the weeks lost"))
        #expect(text.contains("hundreds of comments below"))
    }

    @Test("inside the article: a gallery, a photo's controls (Caption, Close), labels (Advert, Tags, Like this), pointers to other stories (Read more: …), teasers of other stories ending in Read More, and what follows a \"You may also like\" line are left out; a list of the article's own parts with (More) links stays")
    func clutterInside() throws {
        let story = (1...4).map { "<p>Part \($0) of the report on the harbour dredging, with the figures the council gave and what the fishermen said about them.</p>" }.joined()
        let page = """
        <html><body><article class="story">
        <div class="photo-gallery"><figure><img src="a.jpg"><figcaption>The dredger at dawn.</figcaption></figure><button>Back to Gallery</button></div>
        <div class="photo-controls"><span>Caption</span><span>Close</span></div>
        \(story)
        <ul><li>Why the channel silts up. <a href="#why">(More)</a></li><li>What it will cost. <a href="#cost">(More)</a></li></ul>
        <div class="teaser"><p>Meanwhile, across the bay, the ferry timetable changes again this winter.</p><a href="/ferries">Read More</a></div>
        <p>Read more: <a href="/dredgers">The last of the steam dredgers</a></p>
        <p>Advert</p><div><span>Tags:</span> <span>dredging, harbour</span></div><div>Like this:</div>
        <div class="more"><p>You may also like...</p><p>Ten harbours to see before they silt up</p><p>The dredger's captain, in his own words, on forty winters at sea</p></div>
        </article></body></html>
        """
        let text = try Reader.extract(html: Data(page.utf8)).text
        #expect(text.contains("Part 1 of the report") && text.contains("Part 4 of the report"))
        #expect(text.contains("Why the channel silts up.") && text.contains("What it will cost."))
        for clutter in ["The dredger at dawn", "Back to Gallery", "Caption", "Close", "ferry timetable", "Read More", "Advert", "Tags",
                        "You may also like", "Ten harbours", "forty winters", "steam dredgers", "Like this"] {
            #expect(!text.contains(clutter), "\(clutter)")
        }
    }

    @Test("a site menu whose divs the page leaves open does not swallow the story: the parser nests the rest of the page in the menu, which is then kept for the <article> it holds; a footer of teasers is still dropped")
    func menuLeftOpen() throws {
        let page = """
        <html><head><title>Game settings</title></head><body>
        <header><nav class="navbar"><div class="container"><div class="searchbox"><div class="search-options">
        <a href="/">Home</a> <a href="/news">News</a> <a href="/guides">Guides</a>
        </nav></header>
        <main><article><h1>Game settings</h1>
        <p>You are able to customise and adjust the settings of the game on its settings screen, where every option is listed.</p>
        <p>Half length: choose how many minutes you want each half to last, from four minutes to twenty.</p>
        <p>Difficulty: choose how hard the computer plays against you, from beginner to legendary.</p>
        <footer><p>Older news: the winter cup starts.</p><p>Older news: a new stadium.</p><p>Older news: the transfer window.</p></footer>
        </article></main></body></html>
        """
        let text = try Reader.extract(html: Data(page.utf8)).text
        #expect(text.contains("You are able to customise") && text.contains("from beginner to legendary"), "\(text)")
        #expect(!text.contains("Older news") && !text.contains("Guides"), "\(text)")
    }
}
