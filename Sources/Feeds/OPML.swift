import Foundation

/// One subscription in an OPML file: a feed's URL and what it is called.
public struct OPMLOutline: Sendable, Equatable, Codable {
    public var title: String
    public var feedURL: String
    public var siteURL: String?

    public init(title: String, feedURL: String, siteURL: String? = nil) {
        self.title = title
        self.feedURL = feedURL
        self.siteURL = siteURL
    }
}

/// OPML, the file podcast apps trade subscriptions in: read (through the same guarded libxml2 as
/// feeds) and written.
public enum OPML {
    /// Every feed in the file, in document order, once each (by URL), however deeply it is
    /// nested in folders.
    public static func parse(_ data: Data, url: URL? = nil) throws -> [OPMLOutline] {
        let root = try XMLTree.parse(data)
        guard root.name.lowercased() == "opml" else { throw FeedError.notAFeed(root.name) }
        guard let body = root.children.first(where: { $0.name.lowercased() == "body" }) else { return [] }
        var seen = Set<String>()
        var found: [OPMLOutline] = []
        collect(body, base: url, into: &found, seen: &seen)
        return found
    }

    private static func collect(_ element: XMLElement, base: URL?, into found: inout [OPMLOutline], seen: inout Set<String>) {
        for child in element.children where child.name.lowercased() == "outline" {
            // Quirk: exporters write xmlUrl, xmlURL or url; folders are outlines without one.
            let attributes = Dictionary(child.attributes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            if let raw = attributes["xmlurl"] ?? (attributes["type"]?.lowercased() == "rss" ? attributes["url"] : nil),
               let feed = FeedParser.absolute(appScheme(raw), base), !seen.contains(feed) {
                seen.insert(feed)
                // Quirk: title, text, or neither (then the URL is the name until the feed is read).
                let title = [attributes["title"], attributes["text"]].compactMap { $0.map(PlainText.line) }.first { !$0.isEmpty } ?? feed
                found.append(OPMLOutline(title: title, feedURL: feed, siteURL: FeedParser.absolute(attributes["htmlurl"], base)))
            }
            collect(child, base: base, into: &found, seen: &seen)
        }
    }

    /// Quirk: `feed://`, `itpc://` and `pcast://` (links meant to open a podcast app) name an
    /// http feed; `feed:https://…` wraps one.
    public static func appScheme(_ raw: String) -> String {
        let trimmed = raw.trimmed
        let lower = trimmed.lowercased()
        for scheme in ["feed:", "itpc:", "pcast:"] where lower.hasPrefix(scheme) {
            let rest = trimmed.dropFirst(scheme.count)
            if rest.lowercased().hasPrefix("http://") || rest.lowercased().hasPrefix("https://") { return String(rest) }
            return "http:" + rest
        }
        return trimmed
    }

    /// An OPML 2.0 document listing `outlines`, readable by other podcast apps.
    public static func export(_ outlines: [OPMLOutline], title: String = "Reverie podcasts", created: Date = Date()) -> String {
        let dateFormatter = DateFormatter()
        dateFormatter.locale = Locale(identifier: "en_US_POSIX")
        dateFormatter.timeZone = TimeZone(identifier: "UTC")
        dateFormatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>\(escaped(title))</title>",
            "    <dateCreated>\(dateFormatter.string(from: created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        for outline in outlines {
            var attributes = #"type="rss" text="\#(escaped(outline.title))" title="\#(escaped(outline.title))" xmlUrl="\#(escaped(outline.feedURL))""#
            if let site = outline.siteURL { attributes += #" htmlUrl="\#(escaped(site))""# }
            lines.append("    <outline \(attributes)/>")
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // Characters XML 1.0 cannot carry at all are left out rather than written broken.
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
