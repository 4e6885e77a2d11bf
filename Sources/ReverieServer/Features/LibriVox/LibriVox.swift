import Feeds
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
        return try Self.parse(Data(answer.body.readableBytesView))
    }

    // MARK: - LibriVox's JSON

    struct Feed: Decodable {
        var books: [Book]?
    }

    struct Book: Decodable {
        var id: FlexibleString?
        var title: String?
        var description: String?
        var language: String?
        var totaltimesecs: FlexibleString?
        var url_librivox: String?
        var url_zip_file: String?
        var coverart_thumbnail: String?
        var coverart_jpg: String?
        var authors: [Author]?
        var sections: [Section]?
    }

    struct Author: Decodable {
        var first_name: String?
        var last_name: String?
    }

    struct Section: Decodable {
        var section_number: FlexibleString?
        var title: String?
        var listen_url: String?
        var playtime: FlexibleString?
        var readers: [Reader]?
    }

    struct Reader: Decodable {
        var display_name: String?
    }

    /// A number LibriVox sends as a string or a number.
    struct FlexibleString: Decodable {
        var text: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) { text = String(number) }
            else if let number = try? container.decode(Double.self) { text = String(number) }
            else { text = try container.decode(String.self) }
        }
        var int: Int? { Int(text) ?? Double(text).map { Int($0) } }
    }

    /// The catalog's JSON as our values; what is missing or malformed in one book is left out,
    /// and a book without an id, a title or a playable section is skipped.
    static func parse(_ data: Data) throws -> [LibriVoxBookInfo] {
        let feed: Feed
        do {
            feed = try JSONDecoder().decode(Feed.self, from: data)
        } catch {
            throw LibriVoxError.unreadableCatalog
        }
        return (feed.books ?? []).compactMap { book in
            guard let id = book.id?.int, let title = book.title.map(PlainText.fromHTML), !title.isEmpty else { return nil }
            let sections: [LibriVoxSectionInfo] = (book.sections ?? []).enumerated().compactMap { index, section in
                guard let listen = section.listen_url, let url = URL(string: listen), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
                return LibriVoxSectionInfo(number: section.section_number?.int ?? index + 1, title: PlainText.fromHTML(section.title ?? "Section \(index + 1)"),
                                           readers: (section.readers ?? []).compactMap { $0.display_name.map(PlainText.fromHTML) }.filter { !$0.isEmpty },
                                           seconds: Double(section.playtime?.int ?? 0), listenURL: listen)
            }
            let authors = (book.authors ?? []).map { [$0.first_name, $0.last_name].compactMap { $0.map(PlainText.fromHTML) }.filter { !$0.isEmpty }.joined(separator: " ") }
                .filter { !$0.isEmpty }
            // LibriVox's own total, else (0 or missing, as for books still being read) the sections' sum.
            let total = Double(book.totaltimesecs?.int ?? 0)
            return LibriVoxBookInfo(id: id, title: title, authors: authors, description: book.description.map(PlainText.fromHTML).map { String($0.prefix(1000)) },
                                    language: book.language, seconds: total > 0 ? total : sections.reduce(0) { $0 + $1.seconds },
                                    pageURL: book.url_librivox, coverURL: book.coverart_thumbnail ?? book.coverart_jpg, sections: sections)
        }
    }
}
