import Directories
import Foundation
import ReverieAPI

/// LibriVox's catalog API (`<base>/api/feed/audiobooks`), read through the guarded HTTP client.
/// Search by title or author; a book's sections are its chapters, each with its readers.
struct LibriVoxCatalog: Sendable {
    let base: URL
    let client: GuardedHTTPClient
    /// The largest catalog answer taken (a search of 25 books with their sections is ~200 KB).
    static let maxAnswerBytes = 4 << 20
    static let pageSize = 25

    enum Field: String, Sendable { case title, author }

    /// Books whose title (or author's last name) begins with `text`.
    func search(_ text: String, by field: Field) async throws -> [LibriVoxBookInfo] {
        var query = [URLQueryItem(name: "format", value: "json"), URLQueryItem(name: "extended", value: "1"),
                     URLQueryItem(name: "limit", value: String(Self.pageSize))]
        // LibriVox matches a title from its start with a leading ^, an author by last name.
        query.append(field == .title ? URLQueryItem(name: "title", value: "^" + text) : URLQueryItem(name: "author", value: text))
        return try await books(query)
    }

    /// One book by its LibriVox id, or nil.
    func book(id: Int) async throws -> LibriVoxBookInfo? {
        try await books([URLQueryItem(name: "id", value: String(id)), URLQueryItem(name: "format", value: "json"),
                         URLQueryItem(name: "extended", value: "1")]).first
    }

    private func books(_ query: [URLQueryItem]) async throws -> [LibriVoxBookInfo] {
        var components = URLComponents(url: base.appendingPathComponent("api/feed/audiobooks"), resolvingAgainstBaseURL: false)!
        components.queryItems = query
        guard let url = components.url else { throw OutsideFetchError.badURL(base.absoluteString) }
        let answer: OutsideResponse
        do {
            answer = try await client.get(url, accept: "application/json", maxBytes: Self.maxAnswerBytes)
        } catch OutsideFetchError.status(404, _) {
            return []   // LibriVox answers 404 when nothing matches
        }
        do {
            return try LibriVoxAnswer.books(Data(answer.body.readableBytesView))
        } catch {
            throw LibriVoxError.unreadableCatalog
        }
    }
}
