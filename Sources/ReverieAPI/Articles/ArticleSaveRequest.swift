import Foundation

/// `POST /api/articles`: a page to fetch (`url`) or text to keep (`text`, with a `title`).
public struct ArticleSaveRequest: Codable, Sendable, Equatable {
    public var url: String?
    public var text: String?
    public var title: String?
    public init(url: String? = nil, text: String? = nil, title: String? = nil) {
        (self.url, self.text, self.title) = (url, text, title)
    }
}
