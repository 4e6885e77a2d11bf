import Crypto
import Directories
import Foundation
import ReverieAPI

/// Finding podcasts by name: the iTunes Search API (no key needed) and, when the owner has given
/// a key and secret, Podcast Index. Both through the guarded HTTP client.
public struct PodcastDirectory: Sendable {
    public struct PodcastIndexCredentials: Sendable, Equatable {
        public var key: String
        public var secret: String
    }

    let itunesBase: URL
    let podcastIndexBase: URL
    let podcastIndex: PodcastIndexCredentials?
    let client: GuardedHTTPClient
    var now: @Sendable () -> Date = { Date() }

    static let maxAnswerBytes = 4 << 20
    static let limit = 25

    /// Results from every directory that answered, the same feed once (the first directory's),
    /// and what went wrong with any that did not.
    func search(_ term: String) async -> PodcastSearchResult {
        async let fromITunes = attempt("iTunes") { try await itunes(term) }
        async let fromIndex = podcastIndex == nil ? ([], nil) : attempt("Podcast Index") { try await index(term) }
        let answers = await [fromITunes, fromIndex]
        var seen = Set<String>()
        var results: [PodcastFound] = []
        for found in answers.flatMap(\.0) where seen.insert(found.feedURL).inserted { results.append(found) }
        return PodcastSearchResult(results: results, problems: answers.compactMap(\.1))
    }

    private func attempt(_ name: String, _ work: () async throws -> [PodcastFound]) async -> ([PodcastFound], String?) {
        do {
            return (try await work(), nil)
        } catch let error as OutsideFetchError {
            return ([], "\(name): \(ErrorTable.message(for: error, fallback: name))")
        } catch {
            return ([], "\(name) answered with something Reverie cannot read.")
        }
    }

    /// `GET <base>/search?media=podcast&entity=podcast&term=…`.
    func itunes(_ term: String) async throws -> [PodcastFound] {
        var components = URLComponents(url: itunesBase.appendingPathComponent("search"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "media", value: "podcast"), URLQueryItem(name: "entity", value: "podcast"),
                                 URLQueryItem(name: "term", value: term), URLQueryItem(name: "limit", value: String(Self.limit))]
        guard let url = components.url else { throw OutsideFetchError.badURL(itunesBase.absoluteString) }
        return try await client.json(from: url, maxBytes: Self.maxAnswerBytes, read: PodcastDirectoryAnswer.itunes)
    }

    /// `GET <base>/api/1.0/search/byterm?q=…`, signed as Podcast Index asks: the key, the time,
    /// and SHA-1 of key, secret and time.
    func index(_ term: String) async throws -> [PodcastFound] {
        guard let credentials = podcastIndex else { return [] }
        var components = URLComponents(url: podcastIndexBase.appendingPathComponent("api/1.0/search/byterm"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "q", value: term), URLQueryItem(name: "max", value: String(Self.limit))]
        guard let url = components.url else { throw OutsideFetchError.badURL(podcastIndexBase.absoluteString) }
        let time = String(Int(now().timeIntervalSince1970))
        let headers = ["X-Auth-Key": credentials.key, "X-Auth-Date": time, "Authorization": Self.signature(credentials, time: time)]
        return try await client.json(from: url, headers: headers, maxBytes: Self.maxAnswerBytes, read: PodcastDirectoryAnswer.podcastIndex)
    }

    static func signature(_ credentials: PodcastIndexCredentials, time: String) -> String {
        Insecure.SHA1.hash(data: Data((credentials.key + credentials.secret + time).utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
