import Foundation
@testable import Reader
import Archives
import Testing
import ZIPFoundation

/// EPUBs made here, entry by entry: the same shapes real books come in (EPUB 3 with a nav
/// document, EPUB 2 with an NCX), and the hostile ones.
enum BookMaker {
    static func zip(_ entries: [(String, Data)], compression: CompressionMethod = .deflate) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString).epub")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            // The mimetype entry is stored, as the format asks.
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: path == "mimetype" ? .none : compression) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static func page(_ title: String, _ body: String) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <html xmlns="http://www.w3.org/1999/xhtml"><head><title>\(title)</title></head>
            <body>\(body)</body></html>
            """.utf8)
    }

    static let container = Data("""
        <?xml version="1.0"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
        </container>
        """.utf8)

    static func package(nav: Bool) -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="\(nav ? "3.0" : "2.0")" unique-identifier="id">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
                <dc:title>The Lighthouse Keeper</dc:title>
                <dc:creator>Ada Marlow</dc:creator>
                <dc:language>en</dc:language>
                <dc:date>1911-04-02</dc:date>
              </metadata>
              <manifest>
                \(nav ? #"<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>"# : #"<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>"#)
                <item id="cover" href="text/cover.xhtml" media-type="application/xhtml+xml"/>
                <item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>
                <item id="c1b" href="text/chapter1-notes.xhtml" media-type="application/xhtml+xml"/>
                <item id="c2" href="text/chapter2.xhtml" media-type="application/xhtml+xml"/>
                <item id="css" href="style.css" media-type="text/css"/>
              </manifest>
              <spine\(nav ? "" : #" toc="ncx""#)>
                <itemref idref="cover"/>
                <itemref idref="c1"/>
                <itemref idref="c1b"/>
                <itemref idref="c2"/>
              </spine>
            </package>
            """.utf8)
    }

    static let navDocument = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>
        <nav epub:type="toc"><ol>
          <li><a href="text/chapter%201.xhtml">I. The Lamp</a></li>
          <li><a href="text/chapter2.xhtml#start">II. The Storm</a></li>
        </ol></nav>
        <nav epub:type="landmarks"><ol><li><a href="text/cover.xhtml">Cover</a></li></ol></nav>
        </body></html>
        """.utf8)

    static let ncx = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
          <navPoint id="p1" playOrder="1"><navLabel><text>I. The Lamp</text></navLabel><content src="text/chapter%201.xhtml"/>
            <navPoint id="p1a" playOrder="2"><navLabel><text>Notes</text></navLabel><content src="text/chapter1-notes.xhtml"/></navPoint>
          </navPoint>
          <navPoint id="p2" playOrder="3"><navLabel><text>II. The Storm</text></navLabel><content src="text/chapter2.xhtml"/></navPoint>
        </navMap></ncx>
        """.utf8)

    static func book(nav: Bool) throws -> URL {
        try zip([
            ("mimetype", Data("application/epub+zip".utf8)),
            ("META-INF/container.xml", container),
            ("OEBPS/content.opf", package(nav: nav)),
            nav ? ("OEBPS/nav.xhtml", navDocument) : ("OEBPS/toc.ncx", ncx),
            ("OEBPS/text/cover.xhtml", page("Cover", "<p>The Lighthouse Keeper, a novel in two parts.</p>")),
            ("OEBPS/text/chapter 1.xhtml", page("I", "<h1>I. The Lamp</h1><p>Every evening Tom climbed the <b>ninety-one</b> steps to light the <i>great lamp</i>.</p>")),
            ("OEBPS/text/chapter1-notes.xhtml", page("Notes", "<p>The steps were counted by his daughter.</p>")),
            ("OEBPS/text/chapter2.xhtml", page("II", #"<h1 id="start">II. The Storm</h1><p>Then the storm came, as <a href="https://example.org/storms">the almanac</a> said it would.</p>"#)),
            ("OEBPS/style.css", Data("p { margin: 0 }".utf8)),
        ])
    }
}

@Suite("EPUB books")
struct EPUBTests {
    func chapterTexts(_ article: ExtractedArticle) -> [String] {
        let units = Array(article.text.utf16)
        return article.chapters.map { String(decoding: units[$0.location..<$0.location + $0.length], as: UTF16.self).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test("an EPUB 3 book: its chapters are its nav document's table of contents, in spine order, with its facts and formatting")
    func epub3() async throws {
        let file = try BookMaker.book(nav: true)
        defer { try? FileManager.default.removeItem(at: file) }
        let article = try await EPUB.read(file, name: "lighthouse.epub")
        #expect(article.title == "The Lighthouse Keeper")
        #expect(article.byline == "Ada Marlow")
        #expect(article.language == "en")
        #expect(article.published == "1911-04-02")
        #expect(article.chapters.map(\.title) == ["The Lighthouse Keeper", "I. The Lamp", "II. The Storm"])
        let texts = chapterTexts(article)
        #expect(texts[0] == "The Lighthouse Keeper, a novel in two parts.")
        // A page the contents leave out (the notes) stays with the chapter before it.
        #expect(texts[1].hasPrefix("I. The Lamp") && texts[1].hasSuffix("The steps were counted by his daughter."))
        #expect(texts[2].hasPrefix("II. The Storm"))
        // Chapters cover the text end to end.
        #expect(article.chapters.last.map { $0.location + $0.length } == article.text.utf16.count)
        let units = Array(article.text.utf16)
        func styled(_ style: FormattingSpan.Style) -> [String] {
            article.spans.filter { $0.style == style }.map { String(decoding: units[$0.location..<$0.location + $0.length], as: UTF16.self) }
        }
        #expect(styled(.bold) == ["ninety-one"])
        #expect(styled(.italic) == ["great lamp"])
        #expect(styled(.link) == ["the almanac"])
        #expect(article.spans.first { $0.style == .link }?.url == "https://example.org/storms")
        #expect(styled(.heading) == ["I. The Lamp", "II. The Storm"])
    }

    @Test("an EPUB 2 book: chapters from its NCX, nested points included")
    func epub2() async throws {
        let file = try BookMaker.book(nav: false)
        defer { try? FileManager.default.removeItem(at: file) }
        let article = try await EPUB.read(file, name: "lighthouse.epub")
        #expect(article.chapters.map(\.title) == ["The Lighthouse Keeper", "I. The Lamp", "Notes", "II. The Storm"])
        #expect(chapterTexts(article)[2] == "The steps were counted by his daughter.")
    }

    @Test("progress is told page by page, ending at all of them")
    func progress() async throws {
        let file = try BookMaker.book(nav: true)
        defer { try? FileManager.default.removeItem(at: file) }
        nonisolated(unsafe) var heard: [Int] = []
        _ = try await EPUB.read(file, name: "b.epub") { done, total in heard.append(done); #expect(total == 4) }
        #expect(heard == [0, 1, 2, 3, 4])
    }

    @Test("a file that is not an EPUB, or a zip that is not a book, is refused with what it is")
    func notABook() async throws {
        let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).epub")
        try Data("just some words".utf8).write(to: text)
        defer { try? FileManager.default.removeItem(at: text) }
        await #expect(throws: ReaderError.unreadable("it is not an EPUB (an EPUB is a zip file, and this is not one)")) { try await EPUB.read(text, name: "x.epub") }

        let zip = try BookMaker.zip([("notes.txt", Data("hello".utf8))])
        defer { try? FileManager.default.removeItem(at: zip) }
        await #expect(throws: ReaderError.unreadable("the EPUB has no container file (META-INF/container.xml)")) { try await EPUB.read(zip, name: "x.epub") }

        let entities = try BookMaker.zip([("META-INF/container.xml", Data(#"<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "aaaa">]><container>&a;</container>"#.utf8))])
        defer { try? FileManager.default.removeItem(at: entities) }
        do {
            _ = try await EPUB.read(entities, name: "x.epub")
            Issue.record("a container declaring entities was read")
        } catch let error as ReaderError {
            #expect(error.description.contains("entities"))
        }
    }

    @Test("a path that leaves the archive is refused before anything is read")
    func traversal() async throws {
        let zip = try BookMaker.zip([("META-INF/container.xml", BookMaker.container), ("../../etc/evil.xhtml", Data("x".utf8))])
        defer { try? FileManager.default.removeItem(at: zip) }
        await #expect(throws: ArchiveError.unsafePath("../../etc/evil.xhtml")) { try await EPUB.read(zip, name: "x.epub") }
    }

    @Test("a zip bomb is refused by its ratio, and bytes past the limit are never read")
    func bomb() async throws {
        let zeros = Data(count: 20 << 20)
        let zip = try BookMaker.zip([("META-INF/container.xml", BookMaker.container), ("OEBPS/big.xhtml", zeros)])
        defer { try? FileManager.default.removeItem(at: zip) }
        await #expect(throws: ArchiveError.bomb("OEBPS/big.xhtml")) { try await EPUB.read(zip, name: "x.epub") }

        // Under the ratio but over the bytes allowed: stopped as the bytes come.
        let book = try BookMaker.book(nav: true)
        defer { try? FileManager.default.removeItem(at: book) }
        await #expect(throws: ArchiveError.tooLarge(limit: 600)) {
            try await EPUB.read(book, name: "x.epub", limits: .init(maxEntries: 100, maxRatio: 1000, maxBytes: 600))
        }
        await #expect(throws: ArchiveError.tooManyEntries(3)) {
            try await EPUB.read(book, name: "x.epub", limits: .init(maxEntries: 3, maxRatio: 1000, maxBytes: 1 << 20))
        }
    }

    @Test("hrefs inside the book resolve against their folder; ones that climb out do not")
    func hrefs() {
        #expect(EPUB.resolve("../text/a%20b.xhtml#x", from: "OEBPS/nav/") == "OEBPS/text/a b.xhtml")
        #expect(EPUB.resolve("./c.xhtml", from: "") == "c.xhtml")
        #expect(EPUB.resolve("../../x", from: "OEBPS/") == nil)
        #expect(EPUB.resolve("https://example.org/x", from: "") == nil)
        #expect(EPUB.resolve("#only", from: "a/") == nil)
    }
}
