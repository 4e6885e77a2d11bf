import Feeds
import Foundation
import ReverieAPI

/// LibriVox's catalog answer (`api/feed/audiobooks?format=json&extended=1`) read into our values.
public enum LibriVoxAnswer {
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
        /// The whole number it says; nil for text, and for a number no count of seconds or
        /// sections could be (not finite, or past a million years), which `Int(_:)` would trap on.
        var int: Int? { Int(text) ?? Double(text).flatMap { $0.isFinite && abs($0) < 1e13 ? Int($0) : nil } }
    }

    /// The catalog's JSON as our values; what is missing or malformed in one book is left out,
    /// and a book without an id, a title or a playable section is skipped. Throws the decoder's
    /// error for an answer that is not the catalog's JSON at all.
    public static func books(_ data: Data) throws -> [LibriVoxBookInfo] {
        let feed = try JSONDecoder().decode(Feed.self, from: data)
        return (feed.books ?? []).compactMap { book in
            guard let id = book.id?.int, let title = book.title.map(PlainText.fromHTML), !title.isEmpty else { return nil }
            let sections: [LibriVoxSectionInfo] = (book.sections ?? []).enumerated().compactMap { index, section in
                guard let listen = FeedParser.absoluteURL(section.listen_url) else { return nil }
                return LibriVoxSectionInfo(number: section.section_number?.int ?? index + 1, title: PlainText.fromHTML(section.title ?? "Section \(index + 1)"),
                                           readers: (section.readers ?? []).compactMap { $0.display_name.map(PlainText.fromHTML) }.filter { !$0.isEmpty },
                                           seconds: Double(max(0, section.playtime?.int ?? 0)), listenURL: listen)
            }
            let authors = (book.authors ?? []).map { [$0.first_name, $0.last_name].compactMap { $0.map(PlainText.fromHTML) }.filter { !$0.isEmpty }.joined(separator: " ") }
                .filter { !$0.isEmpty }
            // LibriVox's own total, else (0 or missing, as for books still being read) the sections' sum.
            let total = Double(book.totaltimesecs?.int ?? 0)
            return LibriVoxBookInfo(id: id, title: title, authors: authors, description: book.description.map(PlainText.fromHTML).map { String($0.prefix(1000)) },
                                    language: book.language, seconds: total > 0 ? total : sections.reduce(0) { $0 + $1.seconds },
                                    pageURL: FeedParser.absoluteURL(book.url_librivox),
                                    coverURL: FeedParser.absoluteURL(book.coverart_thumbnail) ?? FeedParser.absoluteURL(book.coverart_jpg), sections: sections)
        }
    }
}
