import Foundation

/// Reads RSS 2.0 (and RSS 1.0/RDF) and Atom feeds with the iTunes, `content` and Podcast Index
/// namespaces into a `ParsedFeed`. One entry point, `parse(_:url:)`, which sniffs the format.
public enum FeedParser {
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let podcast = "https://podcastindex.org/namespace/1.0"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let atom = "http://www.w3.org/2005/Atom"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let rss1 = "http://purl.org/rss/1.0/"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let media = "http://search.yahoo.com/mrss/"
    /// Quirk: some feeds spell the Podcast Index namespace with http:// or a trailing slash, or
    /// the iTunes one in capitals; these are all read as the same namespace.
    static let podcastAliases: Set<String> = [podcast, "http://podcastindex.org/namespace/1.0", podcast + "/", "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md"]
    static let itunesAliases: Set<String> = [itunes, "http://www.itunes.com/DTDs/Podcast-1.0.dtd", "https://www.itunes.com/dtds/podcast-1.0.dtd"]

    /// The feed in `data`; `url` (where it came from) resolves relative links. A feed that is not
    /// well-formed is repaired as feedparser would (`FeedRepairs`), and read again; then, if it
    /// still ends with elements open, read with libxml2's recovery. What was repaired is listed in
    /// `repairs`. A document that declares entities, or is too large, is refused as it is.
    public static func parse(_ data: Data, url: URL? = nil) throws -> ParsedFeed {
        do {
            return try read(data, url: url, recover: false, repairs: [])
        } catch let error as FeedError {
            guard case .malformed = error else { throw error }
            let (repaired, repairs) = FeedRepairs.repair(data)
            // Why the repaired feed was refused, when it was read but held nothing to listen to.
            var empty: FeedError?
            for (recover, made) in [(false, repairs), (true, repairs.union([.unclosed]))] where recover || !repairs.isEmpty {
                do {
                    return try read(repaired, url: url, recover: recover, repairs: made)
                } catch let refusal as FeedError where refusal == .noEpisodes {
                    empty = refusal
                } catch {
                    continue
                }
            }
            throw empty ?? error
        }
    }

    static func read(_ data: Data, url: URL?, recover: Bool, repairs: Set<FeedRepair>) throws -> ParsedFeed {
        var repairs = repairs
        var root = try XMLTree.parse(data, recover: recover, namespace: canonical)
        // <rss> in a namespace of its own (`xmlns="http://backend.userland.com/rss2"`): read as RSS
        // without one, its children with it.
        if root.name == "rss", !root.namespace.isEmpty {
            let own = root.namespace
            root = try XMLTree.parse(data, recover: recover) { $0 == own ? "" : canonical($0) }
            repairs.insert(.rootNamespace)
        }
        var feed: ParsedFeed
        switch (root.name, root.namespace) {
        case ("rss", ""): feed = rss(root, base: url)
        case ("RDF", rdf): feed = rss(root, base: url)
        case ("feed", atom): feed = atomFeed(root, base: url)
        // Quirk: Atom without its namespace declared.
        case ("feed", ""): feed = atomFeed(root, base: url)
        default: throw FeedError.notAFeed(root.name)
        }
        // A repaired document that yields nothing to listen to was not a feed after all.
        // (A well-formed feed whose <rss> merely has a namespace may have no episodes yet.)
        if !repairs.subtracting([.rootNamespace]).isEmpty && feed.episodes.isEmpty { throw FeedError.noEpisodes }
        feed.repairs = FeedRepair.allCases.filter(repairs.contains)
        return feed
    }

    /// Namespace aliases folded into one spelling, as the tree is built.
    @Sendable static func canonical(_ namespace: String) -> String {
        if namespace.isEmpty || namespace == itunes || namespace == podcast { return namespace }
        if podcastAliases.contains(namespace) { return podcast }
        if itunesAliases.contains(namespace) || namespace.lowercased() == itunes.lowercased() { return itunes }
        return namespace
    }

    // MARK: - RSS

    static func rss(_ root: XMLElement, base feedURL: URL?) -> ParsedFeed {
        // RSS 2.0 has <channel> with items inside; RSS 1.0 (RDF) has items beside the channel.
        let channel = root.child("channel") ?? root.child("channel", rss1) ?? root
        let items = channel.children("item") + root.children("item", rss1) + channel.children("item", rss1)
        let base = channel.attribute("base").flatMap { URL(string: $0, relativeTo: feedURL) }?.absoluteURL ?? feedURL
        let image = channel.child("image", itunes)?.attribute("href") ?? channel.child("image")?.value("url")
            ?? channel.child("image", rss1)?.attribute("resource")
        return ParsedFeed(
            format: .rss,
            title: PlainText.line(channel.value("title") ?? channel.value("title", rss1) ?? "Untitled feed"),
            author: (channel.value("author", itunes) ?? channel.value("creator", dublinCore) ?? channel.value("managingEditor")).map(PlainText.line),
            link: absolute(channel.value("link") ?? channel.value("link", rss1), base),
            image: absolute(image, base),
            description: channel.value("summary", itunes) ?? channel.value("description"),
            language: channel.value("language"),
            podcastGUID: channel.value("guid", podcast),
            funding: channel.children("funding", podcast).compactMap { funding($0, base) },
            persons: channel.children("person", podcast).compactMap { person($0, base) },
            episodes: items.compactMap { rssItem($0, base: base) })
    }

    static func rssItem(_ item: XMLElement, base channelBase: URL?) -> ParsedEpisode? {
        let base = item.attribute("base").flatMap { URL(string: $0, relativeTo: channelBase) }?.absoluteURL ?? channelBase
        // Quirk: several enclosures (a feed listing MP3 and AAC); the first audio one is taken.
        let enclosures = item.children("enclosure")
        let chosen = enclosures.first { ($0.attribute("type") ?? "").hasPrefix("audio/") } ?? enclosures.first
            ?? item.child("content", media).flatMap { $0.attribute("url") != nil ? $0 : nil }
        let enclosure = chosen.flatMap { element -> ParsedEnclosure? in
            guard let url = absolute(element.attribute("url"), base) else { return nil }
            // Quirk: length="0", "", or text where bytes belong: left out, never guessed.
            let length = (element.attribute("length") ?? element.attribute("fileSize")).flatMap { Int($0.trimmed) }.flatMap { $0 > 0 ? $0 : nil }
            return ParsedEnclosure(url: url, type: element.attribute("type")?.trimmed, length: length)
        }
        let link = absolute(item.value("link") ?? item.value("link", rss1), base)
        let title = item.value("title") ?? item.value("title", itunes) ?? item.value("title", rss1)
        guard title != nil || enclosure != nil else { return nil }   // an item with neither is nothing to play or show
        // Quirk: no guid; the enclosure URL is the next most stable identity, then the link.
        let guid = item.value("guid") ?? enclosure?.url ?? link ?? title ?? ""
        return episode(item, base: base, title: title, guid: guid,
                       published: (item.value("pubDate") ?? item.value("date", dublinCore)).flatMap(FeedDates.parse),
                       enclosure: enclosure, link: link,
                       description: item.value("encoded", content) ?? item.value("description") ?? item.value("summary", itunes))
    }

    /// An episode from what its format says, with the iTunes and Podcast Index elements, which
    /// RSS items and Atom entries carry alike.
    static func episode(_ element: XMLElement, base: URL?, title: String?, guid: String, published: Date?,
                        enclosure: ParsedEnclosure?, link: String?, description: String?) -> ParsedEpisode {
        ParsedEpisode(
            // What the feed says: none when it has none ("Untitled episode" is the screens' word).
            title: title.map(PlainText.line).flatMap { $0.isEmpty ? nil : $0 },
            guid: guid,
            published: published,
            duration: element.value("duration", itunes).flatMap(FeedDates.duration),
            enclosure: enclosure,
            link: link,
            image: absolute(element.child("image", itunes)?.attribute("href"), base),
            description: description,
            season: element.value("season", itunes).flatMap { Int($0) },
            episode: element.value("episode", itunes).flatMap { Int($0) },
            explicit: element.value("explicit", itunes).map { ["yes", "true", "explicit"].contains($0.lowercased()) },
            chapters: absolute(element.child("chapters", podcast)?.attribute("url"), base),
            transcripts: element.children("transcript", podcast).compactMap { transcript($0, base) },
            persons: element.children("person", podcast).compactMap { person($0, base) })
    }

    // MARK: - Atom

    static func atomFeed(_ root: XMLElement, base feedURL: URL?) -> ParsedFeed {
        let ns = root.namespace
        let base = root.attribute("base").flatMap { URL(string: $0, relativeTo: feedURL) }?.absoluteURL ?? feedURL
        let links = root.children("link", ns)
        let page = links.first { ($0.attribute("rel") ?? "alternate") == "alternate" }?.attribute("href")
        return ParsedFeed(
            format: .atom,
            title: PlainText.line(root.value("title", ns) ?? "Untitled feed"),
            author: (root.child("author", ns)?.value("name", ns) ?? root.value("author", itunes)).map(PlainText.line),
            link: absolute(page, base),
            image: absolute(root.child("image", itunes)?.attribute("href") ?? root.value("logo", ns) ?? root.value("icon", ns), base),
            description: root.value("subtitle", ns) ?? root.value("summary", itunes),
            language: root.attribute("lang"),
            podcastGUID: root.value("guid", podcast),
            funding: root.children("funding", podcast).compactMap { funding($0, base) },
            persons: root.children("person", podcast).compactMap { person($0, base) },
            episodes: root.children("entry", ns).compactMap { atomEntry($0, ns: ns, base: base) })
    }

    static func atomEntry(_ entry: XMLElement, ns: String, base feedBase: URL?) -> ParsedEpisode? {
        let base = entry.attribute("base").flatMap { URL(string: $0, relativeTo: feedBase) }?.absoluteURL ?? feedBase
        let links = entry.children("link", ns)
        let enclosureLink = links.first { $0.attribute("rel") == "enclosure" }
        let enclosure = enclosureLink.flatMap { element -> ParsedEnclosure? in
            guard let url = absolute(element.attribute("href"), base) else { return nil }
            return ParsedEnclosure(url: url, type: element.attribute("type"), length: element.attribute("length").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil })
        }
        let page = absolute(links.first { ($0.attribute("rel") ?? "alternate") == "alternate" }?.attribute("href"), base)
        let title = entry.value("title", ns)
        guard title != nil || enclosure != nil else { return nil }
        return episode(entry, base: base, title: title, guid: entry.value("id", ns) ?? enclosure?.url ?? page ?? title ?? "",
                       published: (entry.value("published", ns) ?? entry.value("updated", ns)).flatMap(FeedDates.parse),
                       enclosure: enclosure, link: page, description: entry.value("content", ns) ?? entry.value("summary", ns))
    }

    // MARK: - Podcast Index pieces

    static func transcript(_ element: XMLElement, _ base: URL?) -> ParsedTranscriptLink? {
        guard let url = absolute(element.attribute("url"), base) else { return nil }
        return ParsedTranscriptLink(url: url, type: element.attribute("type") ?? guessType(url), language: element.attribute("language"))
    }

    static func person(_ element: XMLElement, _ base: URL?) -> ParsedPerson? {
        let name = PlainText.line(element.text)
        guard !name.isEmpty else { return nil }
        return ParsedPerson(name: name, role: element.attribute("role")?.lowercased(), href: absolute(element.attribute("href"), base),
                            image: absolute(element.attribute("img"), base))
    }

    static func funding(_ element: XMLElement, _ base: URL?) -> ParsedFunding? {
        guard let url = absolute(element.attribute("url"), base) else { return nil }
        let text = PlainText.line(element.text)
        return ParsedFunding(url: url, text: text.isEmpty ? nil : text)
    }

    /// Quirk: a transcript without its type; the file's extension says it.
    static func guessType(_ url: String) -> String {
        let lower = url.lowercased()
        if lower.hasSuffix(".vtt") { return "text/vtt" }
        if lower.hasSuffix(".srt") { return "application/x-subrip" }
        if lower.hasSuffix(".json") { return "application/json" }
        return "text/html"
    }

    // MARK: - Text and links

    /// `text` if it is an absolute http(s) URL (what a directory or a person gives), else nil.
    public static func absoluteURL(_ text: String?) -> String? {
        absolute(text, nil)
    }

    /// The common case without Foundation's URL parsing: an absolute `http://` or `https://`
    /// address in lower case, a host, and only characters a URL may carry as they are. Anything
    /// else (relative, spaces, odd characters, user info, ports out of form) takes the full path.
    static func plainAbsolute(_ text: String) -> String? {
        let utf8 = text.utf8
        let prefix = text.hasPrefix("https://") ? 8 : text.hasPrefix("http://") ? 7 : 0
        guard prefix > 0, utf8.count > prefix, utf8.count < 4000 else { return nil }
        var inHost = true, hostLength = 0
        for (index, byte) in utf8.enumerated() where index >= prefix {
            if inHost {
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { inHost = false; continue }
                // A host of letters, digits, dots and hyphens only (no user info, ports, IPv6 here).
                guard (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || (byte >= 0x41 && byte <= 0x5A) else { return nil }
                hostLength += 1
                continue
            }
            // Unreserved, reserved and % (escapes stay as written): no spaces, quotes, <>, \, ^, `, {|}.
            guard byte > 0x20, byte < 0x7F, !"\"<>\\^`{|} ".utf8.contains(byte) else { return nil }
        }
        guard hostLength > 0, let first = utf8.dropFirst(prefix).first, first != UInt8(ascii: "."), first != UInt8(ascii: "-") else { return nil }
        return text
    }

    /// An absolute http(s) URL for `text` (relative ones resolved against `base`); nil for other
    /// schemes (`javascript:`, `file:`) and for nothing.
    static func absolute(_ text: String?, _ base: URL?) -> String? {
        guard let raw = text?.trimmed, !raw.isEmpty else { return nil }
        if let plain = plainAbsolute(raw) { return plain }
        // Quirk: spaces inside URLs, which some generators leave unescaped.
        let escaped = raw.replacingOccurrences(of: " ", with: "%20")
        // An absolute address with a host: `https:/x` (one slash) or `http://` alone are not places.
        guard let url = URL(string: escaped, relativeTo: base)?.absoluteURL, let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.absoluteString.lowercased().hasPrefix(scheme + "://") else { return nil }
        // Quirk: `HTTPS://`; the scheme is written in lower case, as everything after compares it.
        return scheme + url.absoluteString.dropFirst(scheme.count)
    }
}
