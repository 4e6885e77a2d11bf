import Foundation

/// `GET /api/articles`.
public struct ArticleList: Codable, Sendable, Equatable {
    public var items: [ArticleSummary]
    public init(items: [ArticleSummary]) { self.items = items }
}
