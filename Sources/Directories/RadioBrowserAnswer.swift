import Feeds
import Foundation
import ReverieAPI

/// radio-browser.info's answers read into our values: its stations (search, top, by id) and its
/// list of API servers.
public enum RadioBrowserAnswer {
    struct Station: Decodable {
        var stationuuid: String?
        var name: String?
        var url: String?
        var url_resolved: String?
        var homepage: String?
        var favicon: String?
        var country: String?
        var tags: String?
        var codec: String?
        var bitrate: Int?
        var hls: Int?
        var votes: Int?
    }

    /// The stations of a `json/stations/…` answer; one without a UUID or a playable http(s)
    /// address is left out. Throws the decoder's error for an answer that is not a station list.
    public static func stations(_ data: Data) throws -> [RadioStationInfo] {
        try JSONDecoder().decode([Station].self, from: data).compactMap { station in
            guard let id = station.stationuuid, UUID(uuidString: id) != nil,
                  let resolved = FeedParser.absoluteURL(station.url_resolved) ?? FeedParser.absoluteURL(station.url) else { return nil }
            let tags = (station.tags ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return RadioStationInfo(id: id.lowercased(), name: PlainText.line(station.name ?? "Unnamed station"),
                                    url: FeedParser.absoluteURL(station.url) ?? resolved, urlResolved: resolved,
                                    homepage: FeedParser.absoluteURL(station.homepage), favicon: FeedParser.absoluteURL(station.favicon),
                                    country: station.country.flatMap { $0.isEmpty ? nil : $0 }, tags: Array(tags.prefix(8)),
                                    codec: station.codec.flatMap { $0.isEmpty ? nil : $0 }, bitrate: station.bitrate.flatMap { $0 > 0 ? $0 : nil },
                                    hls: station.hls == 1, votes: station.votes)
        }
    }

    /// The API servers of a `json/servers` answer, as addresses with `scheme`: each distinct
    /// name once, and only a bare host name (no path, no user part).
    public static func servers(_ data: Data, scheme: String) throws -> [URL] {
        struct Server: Decodable { var name: String? }
        let names = try JSONDecoder().decode([Server].self, from: data).compactMap(\.name)
        var seen = Set<String>()
        return names.compactMap { name in
            guard !name.isEmpty, !name.contains("/"), !name.contains("@"), seen.insert(name).inserted,
                  let url = URL(string: "\(scheme)://\(name)"), url.host != nil else { return nil }
            return url
        }
    }
}
