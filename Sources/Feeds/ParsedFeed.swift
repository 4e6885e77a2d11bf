import Foundation

/// A podcast feed as `FeedParser` reads it: RSS 2.0 or Atom, with the iTunes and Podcast Index
/// namespaces. Episodes in feed order; every URL absolute.
public struct ParsedFeed: Sendable, Equatable, Codable {
    public enum Format: String, Sendable, Codable { case rss, atom }

    public var format: Format
    public var title: String
    public var author: String?
    /// The show's web page.
    public var link: String?
    /// The show's artwork.
    public var image: String?
    public var description: String?
    public var language: String?
    /// `podcast:guid`.
    public var podcastGUID: String?
    public var funding: [ParsedFunding]
    public var persons: [ParsedPerson]
    public var episodes: [ParsedEpisode]
    /// What the feed needed before it could be read (none for a well-formed feed).
    public var repairs: [FeedRepair] = []
}

public struct ParsedEpisode: Sendable, Equatable, Codable {
    /// Nil when the feed gives the episode no title.
    public var title: String?
    /// The item's guid, else its enclosure URL, else its link (feeds without guids exist).
    public var guid: String
    public var published: Date?
    /// Seconds (`itunes:duration`).
    public var duration: Double?
    public var enclosure: ParsedEnclosure?
    public var link: String?
    public var image: String?
    /// Plain text or HTML as the feed has it (`content:encoded` when present, else the description).
    public var description: String?
    public var season: Int?
    public var episode: Int?
    public var explicit: Bool?
    /// `podcast:chapters`: a JSON chapters file.
    public var chapters: String?
    public var transcripts: [ParsedTranscriptLink]
    public var persons: [ParsedPerson]
}

public struct ParsedEnclosure: Sendable, Equatable, Codable {
    public var url: String
    public var type: String?
    /// Bytes, when the feed says (0 and nonsense are left out).
    public var length: Int?

    public init(url: String, type: String?, length: Int?) {
        (self.url, self.type, self.length) = (url, type, length)
    }
}

public struct ParsedTranscriptLink: Sendable, Equatable, Codable {
    public var url: String
    /// `text/vtt`, `application/x-subrip`, `application/json`, `text/html`.
    public var type: String
    public var language: String?

    public init(url: String, type: String, language: String?) {
        (self.url, self.type, self.language) = (url, type, language)
    }
}

public struct ParsedPerson: Sendable, Equatable, Codable {
    public var name: String
    public var role: String?
    public var href: String?
    public var image: String?

    public init(name: String, role: String?, href: String?, image: String?) {
        (self.name, self.role, self.href, self.image) = (name, role, href, image)
    }
}

public struct ParsedFunding: Sendable, Equatable, Codable {
    public var url: String
    public var text: String?

    public init(url: String, text: String?) {
        (self.url, self.text) = (url, text)
    }
}
