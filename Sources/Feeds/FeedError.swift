/// Why a feed (or OPML file, chapters or transcript) could not be read.
public enum FeedError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case entitiesRefused
    case notAFeed(String)
    case tooLarge
    /// Not well-formed, and with repairs still no episode to listen to.
    case noEpisodes

    public var description: String {
        switch self {
        case let .malformed(reason): "This is not a feed Reverie can read: \(reason)."
        case .entitiesRefused: "This feed declares XML entities, which Reverie never expands (they are how XXE and “billion laughs” attacks work); it is refused."
        case let .notAFeed(root): "This is XML but not a feed: its root is <\(root)>, not <rss>, <feed> or <rdf:RDF>."
        case .tooLarge: "This feed is too large to read."
        case .noEpisodes: "This is not a feed Reverie can read: it is not well-formed XML, and even repaired it has no episode to listen to."
        }
    }
}
