import Feeds
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI

/// radio-browser.info, the open directory of internet radio, through the guarded HTTP client.
/// Its API runs on several servers, listed at `<base>/json/servers`: the list is read (and kept
/// for a while), shuffled, and each question asked of one server after another until one answers.
final class RadioBrowser: Sendable {
    let base: URL
    static let maxAnswerBytes = 4 << 20
    static let limit = 40
    private let servers = NIOLockedValueBox<(list: [URL], at: Date)?>(nil)
    static let serverListLifetime: TimeInterval = 600

    init(base: URL) {
        self.base = base
    }

    /// Stations whose name contains `name`, most listened first.
    func search(_ name: String, client: GuardedHTTPClient) async throws -> [RadioStationInfo] {
        try await stations("json/stations/search", query: [("name", name), ("limit", String(Self.limit)), ("hidebroken", "true"),
                                                            ("order", "clickcount"), ("reverse", "true")], client: client)
    }

    /// The most listened-to stations.
    func top(client: GuardedHTTPClient) async throws -> [RadioStationInfo] {
        try await stations("json/stations/topclick/\(Self.limit)", query: [("hidebroken", "true")], client: client)
    }

    func station(_ id: String, client: GuardedHTTPClient) async throws -> RadioStationInfo? {
        try await stations("json/stations/byuuid/\(id)", query: [], client: client).first
    }

    /// Tells radio-browser a station was played (its popularity counts come from these).
    func click(_ id: String, client: GuardedHTTPClient) async throws {
        struct Counted: Decodable {}
        _ = try await ask("json/url/\(id)", query: [], as: Counted.self, client: client)
    }

    private func stations(_ path: String, query: [(String, String)], client: GuardedHTTPClient) async throws -> [RadioStationInfo] {
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
        let decoded = try await ask(path, query: query, as: [Station].self, client: client)
        return decoded.compactMap { station in
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

    /// Asks one server after another (in shuffled order) until one answers with what was asked for.
    private func ask<T: Decodable>(_ path: String, query: [(String, String)], as type: T.Type, client: GuardedHTTPClient) async throws -> T {
        var lastError: (any Error)?
        for server in try await serverList(client: client) {
            var components = URLComponents(url: server.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
            if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
            guard let url = components.url else { continue }
            do {
                return try await client.json(T.self, from: url, maxBytes: Self.maxAnswerBytes)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? OutsideFetchError.unreachable(host: base.host ?? "radio-browser")
    }

    /// The API servers, shuffled; the base itself when the list cannot be had.
    func serverList(client: GuardedHTTPClient) async throws -> [URL] {
        if let kept = servers.withLockedValue({ $0 }), Date().timeIntervalSince(kept.at) < Self.serverListLifetime {
            return kept.list.shuffled()
        }
        var list: [URL] = []
        struct Server: Decodable { var name: String? }
        if let servers = try? await client.json([Server].self, from: base.appendingPathComponent("json/servers"), maxBytes: 1 << 20) {
            let names = servers.compactMap(\.name)
            let scheme = base.scheme ?? "https"
            for name in Set(names) where !name.isEmpty && !name.contains("/") && !name.contains("@") {
                if let url = URL(string: "\(scheme)://\(name)") { list.append(url) }
            }
        }
        if list.isEmpty { list = [base] }
        servers.withLockedValue { $0 = (list, Date()) }
        return list.shuffled()
    }
}
