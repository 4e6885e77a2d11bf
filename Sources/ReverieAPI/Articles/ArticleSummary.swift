import Foundation

/// An article in the list: what it is and how far the person got.
public struct ArticleSummary: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    /// The site's name, or the file's name for an import.
    public var source: String
    /// The page's address, for articles saved from the web.
    public var sourceURL: String?
    public var byline: String?
    /// `web`, `text`, `html`, `txt`, `epub` or `pdf`.
    public var kind: String
    public var words: Int
    /// At 230 words a minute, at least one.
    public var readingMinutes: Int
    /// `saved` (not begun), `inProgress` or `finished`.
    public var status: String
    public var chapterCount: Int
    /// The chapter the person is in (0-based), and where in it: UTF-16 units from the chapter's start.
    public var lastReadChapter: Int
    public var lastReadPosition: Int
    /// 0…1 through the whole text.
    public var fraction: Double
    public var createdAt: Date?
    public var finishedAt: Date?
    public init(id: String, title: String, source: String, sourceURL: String?, byline: String?, kind: String, words: Int, readingMinutes: Int,
                status: String, chapterCount: Int, lastReadChapter: Int, lastReadPosition: Int, fraction: Double, createdAt: Date?, finishedAt: Date?) {
        (self.id, self.title, self.source, self.sourceURL, self.byline, self.kind, self.words, self.readingMinutes) =
            (id, title, source, sourceURL, byline, kind, words, readingMinutes)
        (self.status, self.chapterCount, self.lastReadChapter, self.lastReadPosition, self.fraction, self.createdAt, self.finishedAt) =
            (status, chapterCount, lastReadChapter, lastReadPosition, fraction, createdAt, finishedAt)
    }
}
