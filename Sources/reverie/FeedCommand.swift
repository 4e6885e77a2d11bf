import ArgumentParser
import Feeds
import Foundation
import Playback
import ReverieServer

/// `reverie feed parse FILE|URL [--json]`: what the `Feeds` engine reads from a podcast feed.
struct FeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Read podcast feeds as Reverie does.",
        subcommands: [Parse.self]
    )

    struct Parse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the show and its episodes that Reverie reads from an RSS or Atom feed (a file, or an http(s) URL fetched through the guarded client).",
            discussion: "A URL on a private or loopback address is refused unless REVERIE_ALLOW_PRIVATE_FETCH=1."
        )

        @Argument(help: "A feed file, or an http(s) URL.")
        var source: String

        @Flag(help: #"Print {"title", "author", "link", "image", "episodes": [{"title", "guid", "published", "duration", "enclosure": {"url", "type", "length"}, "chapters", "transcripts": [{"url", "type"}]}]} (episodes in feed order, dates ISO 8601, durations in seconds)."#)
        var json = false

        /// The JSON this prints, every key present (null when the feed has nothing for it).
        struct Report: Encodable {
            struct Episode: Encodable {
                struct Enclosure: Encodable {
                    let url: String
                    let type: String?
                    let length: Int?

                    func encode(to encoder: any Encoder) throws {
                        var container = encoder.container(keyedBy: CodingKeys.self)
                        try container.encode(url, forKey: .url)
                        try container.encode(type, forKey: .type)
                        try container.encode(length, forKey: .length)
                    }
                    enum CodingKeys: String, CodingKey { case url, type, length }
                }
                struct Transcript: Encodable { let url: String; let type: String }
                let title: String
                let guid: String
                let published: String?
                let duration: Double?
                let enclosure: Enclosure?
                let chapters: String?
                let transcripts: [Transcript]

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(title, forKey: .title)
                    try container.encode(guid, forKey: .guid)
                    try container.encode(published, forKey: .published)
                    try container.encode(duration, forKey: .duration)
                    try container.encode(enclosure, forKey: .enclosure)
                    try container.encode(chapters, forKey: .chapters)
                    try container.encode(transcripts, forKey: .transcripts)
                }
                enum CodingKeys: String, CodingKey { case title, guid, published, duration, enclosure, chapters, transcripts }
            }
            let title: String
            let author: String?
            let link: String?
            let image: String?
            let episodes: [Episode]

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(title, forKey: .title)
                try container.encode(author, forKey: .author)
                try container.encode(link, forKey: .link)
                try container.encode(image, forKey: .image)
                try container.encode(episodes, forKey: .episodes)
            }
            enum CodingKeys: String, CodingKey { case title, author, link, image, episodes }

            init(_ feed: ParsedFeed) {
                let iso = ISO8601DateFormatter()
                title = feed.title
                author = feed.author
                link = feed.link
                image = feed.image
                episodes = feed.episodes.map { episode in
                    Episode(title: episode.title, guid: episode.guid, published: episode.published.map { iso.string(from: $0) },
                            duration: episode.duration,
                            enclosure: episode.enclosure.map { Episode.Enclosure(url: $0.url, type: $0.type, length: $0.length) },
                            chapters: episode.chapters, transcripts: episode.transcripts.map { Episode.Transcript(url: $0.url, type: $0.type) })
                }
            }
        }

        func run() async throws {
            let data: Data
            var url: URL?
            if let remote = URL(string: source), ["http", "https"].contains(remote.scheme?.lowercased() ?? "") {
                let allow = ["1", "true"].contains((ProcessInfo.processInfo.environment["REVERIE_ALLOW_PRIVATE_FETCH"] ?? "").lowercased())
                do {
                    (data, url) = try await OutsideFetch.data(from: remote, maxBytes: 64 << 20, allowPrivate: allow)
                } catch let error as APIError {
                    throw CommandFailure("\(source): \(error.message)")
                }
            } else {
                guard let contents = FileManager.default.contents(atPath: source) else { throw CommandFailure("\(source): no such file, or it cannot be read.") }
                data = contents
                url = URL(fileURLWithPath: source)
            }
            let feed: ParsedFeed
            do {
                feed = try FeedParser.parse(data, url: url?.isFileURL == true ? nil : url)
            } catch let error as FeedError {
                throw CommandFailure("\(source): \(error.description)")
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(Report(feed)), as: UTF8.self))
                return
            }
            print("\(feed.title)\(feed.author.map { " — \($0)" } ?? "") (\(feed.format.rawValue), \(feed.episodes.count) episode\(feed.episodes.count == 1 ? "" : "s"))")
            let dates = DateFormatter()
            dates.dateStyle = .medium
            dates.timeStyle = .none
            for episode in feed.episodes {
                let facts = [episode.published.map { dates.string(from: $0) }, episode.duration.map { ListeningProgress.clock($0) },
                             episode.enclosure == nil ? "no audio" : nil, episode.chapters == nil ? nil : "chapters",
                             episode.transcripts.isEmpty ? nil : "transcript"].compactMap { $0 }
                print("  \(episode.title)\(facts.isEmpty ? "" : "  (\(facts.joined(separator: ", ")))")")
            }
        }
    }
}
