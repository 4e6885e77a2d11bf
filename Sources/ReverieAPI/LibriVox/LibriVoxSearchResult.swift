import Foundation

/// `GET /api/librivox/search`.
public struct LibriVoxSearchResult: Codable, Sendable, Equatable {
    public var books: [LibriVoxBookInfo]

    public init(books: [LibriVoxBookInfo]) {
        self.books = books
    }
}
