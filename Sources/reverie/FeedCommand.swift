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
        static func report(_ feed: ParsedFeed) -> [String: Any] {
            let iso = ISO8601DateFormatter()
            func orNull(_ value: Any?) -> Any { value ?? NSNull() }
            return [
                "title": feed.title, "author": orNull(feed.author), "link": orNull(feed.link), "image": orNull(feed.image),
                "episodes": feed.episodes.map { episode -> [String: Any] in [
                    "title": episode.title, "guid": episode.guid, "published": orNull(episode.published.map { iso.string(from: $0) }),
                    "duration": orNull(episode.duration), "chapters": orNull(episode.chapters),
                    "enclosure": orNull(episode.enclosure.map { ["url": $0.url, "type": orNull($0.type), "length": orNull($0.length)] as [String: Any] }),
                    "transcripts": episode.transcripts.map { ["url": $0.url, "type": $0.type] },
                ] },
            ]
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
                let data = try JSONSerialization.data(withJSONObject: Self.report(feed), options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
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
