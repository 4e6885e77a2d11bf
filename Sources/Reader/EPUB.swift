import Feeds
import Foundation
import Archives

/// An EPUB (2 or 3) read into one article: the spine's pages in order as rich text, chapters from
/// the table of contents (EPUB 3's nav document, else EPUB 2's NCX), and the title, author,
/// language and date from the package document. The archive goes through `SafeArchive`; the
/// package, container and NCX through the XML reader that refuses entities; pages through the
/// HTML parser.
public enum EPUB {
    /// Limits for a book: far past any real one.
    public static let limits = SafeArchive.Limits(maxEntries: 10_000, maxRatio: 1_000, maxBytes: 256 << 20)

    static let containerNS = "urn:oasis:names:tc:opendocument:xmlns:container"
    static let opfNS = "http://www.idpf.org/2007/opf"
    static let dcNS = "http://purl.org/dc/elements/1.1/"
    static let ncxNS = "http://www.daisy.org/z3986/2005/ncx/"

    /// Reads the book at `file`. `progress(done, total)` hears each page read.
    /// - Throws: `ArchiveError` for an unsafe or damaged zip, `ReaderError.unreadable` for a zip
    ///   that is not an EPUB, `ReaderError.noArticle` for a book without text.
    public static func read(_ file: URL, name: String, limits: SafeArchive.Limits = EPUB.limits,
                            progress: (Int, Int) async -> Void = { _, _ in }) async throws -> ExtractedArticle {
        guard SafeArchive.isZip(file) else { throw ReaderError.unreadable("it is not an EPUB (an EPUB is a zip file, and this is not one)") }
        var archive = try SafeArchive(url: file, limits: limits)
        func xml(_ path: String, _ what: String) throws -> XMLElement {
            guard let entry = archive.entry(path) else { throw ReaderError.unreadable("the EPUB has no \(what) (\(path))") }
            do {
                return try XMLTree.parse(try archive.data(entry))
            } catch let error as FeedError {
                throw ReaderError.unreadable("its \(what) is not XML Reverie can read (\(error.description.replacingOccurrences(of: "feed", with: "file")))")
            }
        }
        let container = try xml("META-INF/container.xml", "container file")
        guard let rootPath = container.child("rootfiles", containerNS)?.children("rootfile", containerNS)
            .first(where: { ($0.attribute("media-type") ?? "application/oebps-package+xml") == "application/oebps-package+xml" })?
            .attribute("full-path").map({ resolve($0, from: "") }) ?? nil else {
            throw ReaderError.unreadable("its container file names no package document")
        }
        let package = try xml(rootPath, "package document")
        let folder = directory(of: rootPath)

        // The manifest, the spine, and the book's own facts.
        var manifest: [String: (path: String, type: String, properties: String)] = [:]
        for item in package.child("manifest", opfNS)?.children("item", opfNS) ?? [] {
            guard let id = item.attribute("id"), let href = item.attribute("href"), let path = resolve(href, from: folder) else { continue }
            manifest[id] = (path, item.attribute("media-type") ?? "", item.attribute("properties") ?? "")
        }
        let spineElement = package.child("spine", opfNS)
        let spine: [String] = (spineElement?.children("itemref", opfNS) ?? []).compactMap { ref in
            guard ref.attribute("linear") != "no", let id = ref.attribute("idref"), let item = manifest[id],
                  ["application/xhtml+xml", "text/html", "application/xml", ""].contains(item.type) else { return nil }
            return item.path
        }
        guard !spine.isEmpty else { throw ReaderError.unreadable("its package document lists no pages to read") }
        let metadata = package.child("metadata", opfNS)
        let bookTitle = metadata?.value("title", dcNS) ?? (name as NSString).deletingPathExtension

        // The table of contents: (title, page) in reading order.
        var contents: [(title: String, path: String)] = []
        if let nav = manifest.values.first(where: { $0.properties.split(separator: " ").contains("nav") }), let entry = archive.entry(nav.path) {
            contents = try tableOfContents(nav: try archive.data(entry), path: nav.path)
        }
        if contents.isEmpty, let tocID = spineElement?.attribute("toc") ?? manifest.first(where: { $0.value.type == "application/x-dtbncx+xml" })?.key,
           let ncx = manifest[tocID], archive.entry(ncx.path) != nil {
            contents = tableOfContents(ncx: try xml(ncx.path, "table of contents"), path: ncx.path)
        }

        // The pages, one after another, with where each begins.
        var builder: RichTextBuilder?
        var starts: [String: Int] = [:]
        var firstHeadings: [String: String] = [:]
        for (index, path) in spine.enumerated() {
            await progress(index, spine.count)
            guard starts[path] == nil, let entry = archive.entry(path) else { continue }
            let data = try archive.data(entry)
            guard let document = try? HTMLDocument(data, encoding: nil) else { continue }
            var extractor = Extractor(document, title: nil)
            let body = extractor.prepare()
            if builder == nil { builder = RichTextBuilder(document: extractor.document, base: nil) }
            builder!.document = extractor.document
            builder!.breakBlock()
            let before = builder!.utf16Count, headingsBefore = builder!.headings.count
            builder!.add(body)
            guard builder!.utf16Count > before else { continue }
            // The page's first character: past the blank line that parts it from the last page.
            starts[path] = before == 0 ? 0 : before + 2
            if builder!.headings.count > headingsBefore { firstHeadings[path] = builder!.headings[headingsBefore].title }
        }
        await progress(spine.count, spine.count)
        guard let built = builder, !built.text.isEmpty else { throw ReaderError.noArticle }

        // Chapters: at each entry of the contents whose page has text, in reading order; a page
        // the contents leave out belongs to the chapter before it.
        var marks: [(title: String, location: Int)] = []
        for entry in contents {
            guard let start = starts[entry.path], start > (marks.last?.location ?? -1) else { continue }
            marks.append((entry.title, start))
        }
        if marks.isEmpty {
            marks = spine.compactMap { path in starts[path].map { (firstHeadings[path] ?? "", $0) } }
                .enumerated().map { ($0.element.0.isEmpty ? "Part \($0.offset + 1)" : $0.element.0, $0.element.1) }
        }
        if let first = marks.first, first.location > 0 { marks.insert((bookTitle, 0), at: 0) }
        let chapters = marks.enumerated().map { index, mark in
            ArticleChapter(title: mark.title, location: mark.location,
                           length: (index + 1 < marks.count ? marks[index + 1].location : built.utf16Count) - mark.location)
        }
        return ExtractedArticle(source: name, title: bookTitle, byline: metadata?.value("creator", dcNS), siteName: nil,
                                published: metadata?.value("date", dcNS), language: metadata?.value("language", dcNS), leadImage: nil,
                                text: built.text, spans: built.spans, chapters: chapters)
    }

    /// EPUB 3's nav document: the links of its `toc` nav, in order.
    static func tableOfContents(nav data: Data, path: String) throws -> [(title: String, path: String)] {
        guard let document = try? HTMLDocument(data, encoding: nil) else { return [] }
        let navs = document.descendants(of: document.root, named: ["nav"])
        guard let toc = navs.first(where: { (document[$0].attributes["epub:type"] ?? document[$0].attributes["type"] ?? "").split(separator: " ").contains("toc") }) ?? navs.first else { return [] }
        let folder = directory(of: path)
        return document.descendants(of: toc, named: ["a"]).compactMap { link in
            guard let href = document[link].attributes["href"], let target = resolve(href, from: folder) else { return nil }
            let title = PlainTextLine.of(document.text(of: link))
            return title.isEmpty ? nil : (title, target)
        }
    }

    /// EPUB 2's NCX: its navigation points, depth first.
    static func tableOfContents(ncx root: XMLElement, path: String) -> [(title: String, path: String)] {
        let folder = directory(of: path)
        var found: [(title: String, path: String)] = []
        var stack = (root.child("navMap", ncxNS)?.children("navPoint", ncxNS) ?? []).reversed().map { $0 }
        while let point = stack.popLast() {
            if let src = point.child("content", ncxNS)?.attribute("src"), let target = resolve(src, from: folder),
               let title = point.child("navLabel", ncxNS)?.value("text", ncxNS).map(PlainTextLine.of), !title.isEmpty {
                found.append((title, target))
            }
            stack.append(contentsOf: point.children("navPoint", ncxNS).reversed())
        }
        return found
    }

    /// The folder part of an archive path ("OEBPS/" for "OEBPS/content.opf").
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    /// An href inside the book as an archive path: relative to `folder`, its fragment and query
    /// dropped, percent escapes undone, `.` and `..` walked. Nil for an outside address or one
    /// that climbs out of the archive.
    static func resolve(_ href: String, from folder: String) -> String? {
        var reference = href.trimmingCharacters(in: .whitespacesAndNewlines)
        if let cut = reference.firstIndex(where: { $0 == "#" || $0 == "?" }) { reference = String(reference[..<cut]) }
        guard !reference.isEmpty, !reference.contains("://"), !reference.hasPrefix("/") else { return nil }
        reference = reference.removingPercentEncoding ?? reference
        var parts: [Substring] = folder.split(separator: "/")
        for part in reference.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }
}
