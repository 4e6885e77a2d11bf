import Foundation

/// What a page says about its article: from JSON-LD first, then OpenGraph and other meta tags,
/// then the page itself.
public struct ArticleMetadata: Sendable, Equatable, Codable {
    public var title: String?
    public var byline: String?
    public var siteName: String?
    /// ISO 8601, as the page gives it.
    public var published: String?
    public var leadImage: String?
    public var language: String?
    public var excerpt: String?
    /// The article's own text as the page's JSON-LD gives it (`articleBody`), when it does.
    public var body: String?

    public init() {}

    init(_ document: HTMLDocument, base: URL?) {
        // One walk over the page gathers every element any of the sources below reads.
        var metas: [Int] = [], scripts: [Int] = [], headings: [Int] = [], times: [Int] = [], bylines: [Int] = []
        var titleElement: Int?
        for index in document.descendants(of: document.root) {
            switch document.nodes[index].name {
            case "meta": metas.append(index)
            case "script": scripts.append(index)
            case "title": titleElement = titleElement ?? index
            case "h1", "h2": headings.append(index)
            case "time": times.append(index)
            default: break
            }
            if Self.namesAuthor(document.nodes[index]) { bylines.append(index) }
        }
        var meta: [String: String] = [:]
        for index in metas {
            let attributes = document.nodes[index].attributes
            guard let key = (attributes["property"] ?? attributes["name"] ?? attributes["itemprop"])?.lowercased(),
                  let content = attributes["content"]?.trimmingCharacters(in: .whitespacesAndNewlines), !content.isEmpty,
                  meta[key] == nil else { continue }
            meta[key] = content
        }
        let linked = Self.jsonLD(document, scripts: scripts)
        title = linked.title ?? meta["og:title"] ?? meta["twitter:title"] ?? meta["dc.title"]
            ?? Self.trimmedTitle(titleElement.map { document.text(of: $0) }, site: meta["og:site_name"],
                                 headings: Set(headings.map { document.text(of: $0) }))
        byline = linked.byline ?? meta["author"] ?? meta["article:author"].flatMap { $0.hasPrefix("http") ? nil : $0 } ?? meta["dc.creator"]
            ?? Self.pageByline(document, candidates: bylines)
        siteName = linked.siteName ?? meta["og:site_name"] ?? meta["application-name"]
        published = linked.published ?? meta["article:published_time"] ?? meta["date"] ?? meta["dc.date"] ?? meta["datepublished"]
            ?? times.lazy.compactMap { document.nodes[$0].attributes["datetime"] }.first
        let image = linked.leadImage ?? meta["og:image"] ?? meta["twitter:image"]
        leadImage = image.flatMap { URL(string: $0, relativeTo: base)?.absoluteString }
        language = document[document.root].attributes["lang"].flatMap { $0.isEmpty ? nil : $0 } ?? linked.language ?? meta["og:locale"]
        excerpt = linked.excerpt ?? meta["description"] ?? meta["og:description"]
        body = linked.body
        if let text = byline { byline = PlainTextLine.of(text) }
        if let text = title { title = PlainTextLine.of(text) }
    }

    /// Whether an element says it holds the author: `rel` or `itemprop` "author", or a class or
    /// id of author, byline or vcard.
    static func namesAuthor(_ node: HTMLDocument.Node) -> Bool {
        guard !node.attributes.isEmpty else { return false }
        if node.attributes["rel"]?.lowercased() == "author" || node.attributes["itemprop"]?.lowercased() == "author" { return true }
        let names = ((node.attributes["class"] ?? "") + " " + (node.attributes["id"] ?? "")).lowercased()
        return names.split(separator: " ").contains { $0 == "author" || $0 == "byline" || $0.hasSuffix("-author") || $0 == "vcard" }
    }

    /// The author a page names in its text: the first of `candidates` (elements that say they
    /// hold it) with a short text ("By Wren" gives "Wren").
    static func pageByline(_ document: HTMLDocument, candidates: [Int]) -> String? {
        for index in candidates {
            var text = document.text(of: index)
            for prefix in ["By ", "by ", "Par ", "Von ", "Por "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
            if !text.isEmpty && text.count < 80 { return text }
        }
        return nil
    }

    /// "Article — Site" and "Article | Site" titles without the site.
    static func trimmedTitle(_ title: String?, site: String?, headings: Set<String> = []) -> String? {
        guard let title, !title.isEmpty else { return nil }
        for separator in [" | ", " — ", " – ", " - ", " :: ", " · "] {
            guard let range = title.range(of: separator, options: .backwards) else { continue }
            let head = String(title[..<range.lowerBound]), tail = String(title[range.upperBound...])
            if headings.contains(head) { return head }
            if let site, tail.localizedCaseInsensitiveContains(site) || site.localizedCaseInsensitiveContains(tail) { return head }
            if head.split(separator: " ").count >= 3 && tail.split(separator: " ").count <= 4 { return head }
        }
        return title
    }

    /// The schema.org types that describe an article (a WebPage is used only when nothing else is).
    static let articleKinds: Set<String> = ["article", "newsarticle", "blogposting", "reportage", "scholarlyarticle", "techarticle", "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle", "socialmediaposting", "webpage"]

    /// The article fields of the page's JSON-LD (an Article, NewsArticle, BlogPosting … object,
    /// alone, in a list or in an @graph).
    static func jsonLD(_ document: HTMLDocument, scripts: [Int]) -> ArticleMetadata {
        var found = ArticleMetadata()
        for index in scripts where document.nodes[index].attributes["type"]?.lowercased() == "application/ld+json" {
            let raw = document[index].children.map { document[$0].text }.joined()
            guard let data = raw.data(using: .utf8), let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { continue }
            var objects: [[String: Any]] = []
            var queue: [Any] = [json]
            while let next = queue.popLast(), objects.count < 200 {
                if let list = next as? [Any] { queue.append(contentsOf: list) }
                if let object = next as? [String: Any] {
                    objects.append(object)
                    if let graph = object["@graph"] { queue.append(graph) }
                }
            }
            let articles = objects.filter { object in
                let types = (object["@type"] as? String).map { [$0] } ?? (object["@type"] as? [String]) ?? []
                return types.contains { articleKinds.contains($0.lowercased()) }
            }
            // An Article before a WebPage.
            guard let article = articles.first(where: { ($0["@type"] as? String)?.lowercased() != "webpage" }) ?? articles.first else { continue }
            func name(_ value: Any?) -> String? {
                if let text = value as? String { return text.isEmpty ? nil : text }
                if let object = value as? [String: Any] { return name(object["name"]) }
                if let list = value as? [Any] {
                    let names = list.compactMap { name($0) }
                    return names.isEmpty ? nil : names.joined(separator: ", ")
                }
                return nil
            }
            func url(_ value: Any?) -> String? {
                if let text = value as? String { return text }
                if let object = value as? [String: Any] { return url(object["url"]) }
                if let list = value as? [Any] { return list.lazy.compactMap { url($0) }.first }
                return nil
            }
            found.title = found.title ?? name(article["headline"]) ?? name(article["name"])
            found.byline = found.byline ?? name(article["author"]) ?? name(article["creator"])
            found.siteName = found.siteName ?? name(article["publisher"])
            found.published = found.published ?? (article["datePublished"] as? String) ?? (article["dateCreated"] as? String)
            found.leadImage = found.leadImage ?? url(article["image"]) ?? url(article["thumbnailUrl"])
            found.language = found.language ?? (article["inLanguage"] as? String)
            found.excerpt = found.excerpt ?? (article["description"] as? String)
            found.body = found.body ?? (article["articleBody"] as? String).flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        }
        return found
    }
}

/// One line of text: whitespace runs made one space, trimmed.
enum PlainTextLine {
    static func of(_ text: String) -> String { words(text).joined(separator: " ") }

    /// Whether a scalar is white space (ASCII answered without Unicode's tables).
    @inline(__always) static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x80 ? scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }

    /// The runs of `text` between white space.
    static func words(_ text: String) -> [Substring] {
        var words: [Substring] = []
        let scalars = text.unicodeScalars
        var start: String.UnicodeScalarView.Index?
        var index = scalars.startIndex
        while index != scalars.endIndex {
            if isSpace(scalars[index]) {
                if let begun = start { words.append(Substring(scalars[begun..<index])); start = nil }
            } else if start == nil {
                start = index
            }
            index = scalars.index(after: index)
        }
        if let begun = start { words.append(Substring(scalars[begun..<scalars.endIndex])) }
        return words
    }
}
