import Foundation

/// `GET /api/articles/{id}`: the whole piece.
public struct ArticleInfo: Codable, Sendable, Equatable {
    public var summary: ArticleSummary
    public var siteName: String?
    public var published: String?
    public var language: String?
    /// What the voice reads; paragraphs apart by a blank line.
    public var text: String
    public var spans: [ArticleSpanInfo]
    public var chapters: [ArticleChapterInfo]
    public init(summary: ArticleSummary, siteName: String?, published: String?, language: String?, text: String,
                spans: [ArticleSpanInfo], chapters: [ArticleChapterInfo]) {
        (self.summary, self.siteName, self.published, self.language, self.text, self.spans, self.chapters) =
            (summary, siteName, published, language, text, spans, chapters)
    }
}
