import Foundation

/// A style over an article's text. `location` and `length` count UTF-16 code units of the text
/// (the units JavaScript indexes strings by), never characters.
public struct ArticleSpanInfo: Codable, Sendable, Equatable {
    public var location: Int
    public var length: Int
    /// `bold`, `italic`, `link`, `heading`, `quote`, `listItem` or `code`.
    public var style: String
    /// A link's address (http, https or mailto).
    public var url: String?
    /// A heading's level, 1–6.
    public var level: Int?
    public init(location: Int, length: Int, style: String, url: String?, level: Int?) {
        (self.location, self.length, self.style, self.url, self.level) = (location, length, style, url, level)
    }
}
