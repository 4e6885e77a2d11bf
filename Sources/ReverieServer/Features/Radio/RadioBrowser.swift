import Directories
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
        _ = try await ask("json/url/\(id)", query: [], client: client) { try JSONDecoder().decode(Counted.self, from: $0) }
    }

    private func stations(_ path: String, query: [(String, String)], client: GuardedHTTPClient) async throws -> [RadioStationInfo] {
        try await ask(path, query: query, client: client, read: RadioBrowserAnswer.stations)
    }

    /// Asks one server after another (in shuffled order) until one answers with what was asked for.
    private func ask<T>(_ path: String, query: [(String, String)], client: GuardedHTTPClient, read: (Data) throws -> T) async throws -> T {
        var lastError: (any Error)?
        for server in try await serverList(client: client) {
            var components = URLComponents(url: server.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
            if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
            guard let url = components.url else { continue }
            do {
                return try await client.json(from: url, maxBytes: Self.maxAnswerBytes, read: read)
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
        let scheme = base.scheme ?? "https"
        var list = (try? await client.json(from: base.appendingPathComponent("json/servers"), maxBytes: 1 << 20) {
            try RadioBrowserAnswer.servers($0, scheme: scheme)
        }) ?? []
        if list.isEmpty { list = [base] }
        servers.withLockedValue { $0 = (list, Date()) }
        return list.shuffled()
    }
}
