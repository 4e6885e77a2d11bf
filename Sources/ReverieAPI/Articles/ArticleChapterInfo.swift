import Foundation

/// A part of an article or book: a stretch of its text, in UTF-16 code units.
public struct ArticleChapterInfo: Codable, Sendable, Equatable {
    public var title: String
    public var location: Int
    public var length: Int
    public init(title: String, location: Int, length: Int) {
        (self.title, self.location, self.length) = (title, location, length)
    }
}
