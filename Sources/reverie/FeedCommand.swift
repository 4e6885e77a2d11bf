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

        @Argument(help: "A feed file, or an http(s) URL; several are read in turn (with --json, one line each).")
        var sources: [String]

        @Flag(help: #"Print {"title", "author", "link", "image", "episodes": [{"title", "guid", "published", "duration", "enclosure": {"url", "type", "length"}, "chapters", "transcripts": [{"url", "type"}]}]} (episodes in feed order, dates ISO 8601, durations in seconds)."#)
        var json = false

        /// The JSON this prints, every key present (null when the feed has nothing for it), keys in
        /// order. Written directly as bytes: Foundation's serializer takes longer than reading the feed.
        static func json(_ feed: ParsedFeed) -> String {
            var out = JSONBytes()
            out.bytes.reserveCapacity(feed.episodes.count * 400 + 512)
            out.raw("{\"author\":"); out.string(feed.author)
            out.raw(",\"episodes\":[")
            for (index, episode) in feed.episodes.enumerated() {
                if index > 0 { out.raw(",") }
                out.raw("{\"chapters\":"); out.string(episode.chapters)
                out.raw(",\"duration\":"); out.number(episode.duration)
                out.raw(",\"enclosure\":")
                if let enclosure = episode.enclosure {
                    out.raw("{\"length\":"); out.number(enclosure.length.map(Double.init))
                    out.raw(",\"type\":"); out.string(enclosure.type)
                    out.raw(",\"url\":"); out.string(enclosure.url)
                    out.raw("}")
                } else {
                    out.raw("null")
                }
                out.raw(",\"guid\":"); out.string(episode.guid)
                out.raw(",\"published\":"); out.string(episode.published.map(iso8601))
                out.raw(",\"title\":"); out.string(episode.title)
                out.raw(",\"transcripts\":[")
                for (number, transcript) in episode.transcripts.enumerated() {
                    if number > 0 { out.raw(",") }
                    out.raw("{\"type\":"); out.string(transcript.type)
                    out.raw(",\"url\":"); out.string(transcript.url)
                    out.raw("}")
                }
                out.raw("]}")
            }
            out.raw("],\"image\":"); out.string(feed.image)
            out.raw(",\"link\":"); out.string(feed.link)
            out.raw(",\"repairs\":[")
            for (index, repair) in feed.repairs.enumerated() {
                if index > 0 { out.raw(",") }
                out.string(repair.rawValue)
            }
            out.raw("],\"title\":"); out.string(feed.title)
            out.raw("}")
            return String(decoding: out.bytes, as: UTF8.self)
        }

        /// JSON text built as UTF-8 bytes.
        struct JSONBytes {
            var bytes: [UInt8] = []

            mutating func raw(_ text: StaticString) {
                bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            }

            mutating func string(_ value: String?) {
                guard let value else { raw("null"); return }
                bytes.append(0x22)
                for byte in value.utf8 {
                    switch byte {
                    case 0x22: raw("\\\"")
                    case 0x5C: raw("\\\\")
                    case 0x0A: raw("\\n")
                    case 0x0D: raw("\\r")
                    case 0x09: raw("\\t")
                    case 0..<0x20:
                        let hex: [UInt8] = Array("0123456789abcdef".utf8)
                        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                    default: bytes.append(byte)
                    }
                }
                bytes.append(0x22)
            }

            mutating func number(_ value: Double?) {
                guard let value, value.isFinite else { raw("null"); return }
                let text = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
                bytes.append(contentsOf: text.utf8)
            }
        }

        /// `2025-06-03T09:39:21Z`, by arithmetic like the dates read.
        static func iso8601(_ date: Date) -> String {
            let seconds = Int(date.timeIntervalSince1970.rounded(.down))
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let time = seconds - days * 86_400
            // Civil date from days since 1970 (Howard Hinnant's algorithm).
            let z = days + 719_468
            let era = (z >= 0 ? z : z - 146_096) / 146_097
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let mp = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * mp + 2) / 5 + 1
            let month = mp < 10 ? mp + 3 : mp - 9
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
            let yearText = String(year)
            return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time % 3600 / 60)):\(two(time % 60))Z"
        }

        func run() async throws {
            guard !sources.isEmpty else { throw CommandFailure("Name a feed file or URL.") }
            for source in sources { try await parse(source) }
        }

        func parse(_ source: String) async throws {
            let data: Data
            var url: URL?
            if let answer = try await OutsideSource.fetch(source, maxBytes: 64 << 20,
                                                          accept: "application/rss+xml, application/atom+xml, application/xml, text/xml, */*") {
                (data, url) = (answer.data, answer.url)
            } else {
                // Mapped, not copied: a feed can be tens of megabytes.
                guard let contents = try? Data(contentsOf: URL(fileURLWithPath: source), options: .alwaysMapped) else {
                    throw CommandFailure("\(source): no such file, or it cannot be read.")
                }
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
                print(Self.json(feed))
                return
            }
            print("\(feed.title)\(feed.author.map { " — \($0)" } ?? "") (\(feed.format.rawValue), \(feed.episodes.count) episode\(feed.episodes.count == 1 ? "" : "s"))")
            if !feed.repairs.isEmpty {
                print("  read with repairs: \(feed.repairs.map(\.rawValue).joined(separator: "; "))")
            }
            let dates = DateFormatter()
            dates.dateStyle = .medium
            dates.timeStyle = .none
            for episode in feed.episodes {
                let facts = [episode.published.map { dates.string(from: $0) }, episode.duration.map { ListeningProgress.clock($0) },
                             episode.enclosure == nil ? "no audio" : nil, episode.chapters == nil ? nil : "chapters",
                             episode.transcripts.isEmpty ? nil : "transcript"].compactMap { $0 }
                print("  \(episode.title ?? "Untitled episode")\(facts.isEmpty ? "" : "  (\(facts.joined(separator: ", ")))")")
            }
        }
    }
}
