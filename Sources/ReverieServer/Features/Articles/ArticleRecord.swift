import Foundation
import Reader
import ReverieAPI

/// An article as the articles table holds it: what `ArticleRepository` answers, a value that
/// knows nothing of the database (see `ArticleModel` for the row it is read from).
public struct ArticleRecord: Sendable, Equatable {
    public var id: UUID
    public var title: String
    /// The site's name, or the file's name ("Pasted text" for pasted text).
    public var source: String
    public var sourceURL: String?
    public var byline: String?
    public var siteName: String?
    public var published: String?
    public var language: String?
    /// `web`, `text`, `html`, `txt`, `epub` or `pdf`.
    public var kind: String
    /// What the voice reads; paragraphs apart by a blank line.
    public var text: String
    /// UTF-16 length of `text`.
    public var textLength: Int
    public var words: Int
    /// `[ArticleSpanInfo]` as JSON, kept as text: only the reading view decodes it.
    public var spans: String
    /// `[ArticleChapterInfo]` as JSON.
    public var chapters: String
    /// The chapter the person is in (0-based), and how far into it (UTF-16 units).
    public var lastReadChapter: Int
    public var lastReadPosition: Int
    public var finishedAt: Date?
    /// Nil only before the store has written it.
    public var createdAt: Date?
    public var updatedAt: Date?
}

extension ArticleRecord {
    /// A new article, not yet stored, from what the engine read; its id is made here and kept
    /// by the store.
    init(_ article: ExtractedArticle, kind: String, sourceURL: String?) {
        self.init(id: UUID(), title: String(article.title.prefix(500)),
                  source: article.siteName ?? sourceURL.flatMap { URL(string: $0)?.host } ?? article.source,
                  sourceURL: sourceURL, byline: article.byline, siteName: article.siteName, published: article.published,
                  language: article.language, kind: kind, text: article.text, textLength: article.text.utf16.count,
                  words: article.text.split(whereSeparator: \.isWhitespace).count,
                  spans: String(decoding: (try? JSONEncoder().encode(article.spans)) ?? Data("[]".utf8), as: UTF8.self),
                  chapters: String(decoding: (try? JSONEncoder().encode(article.chapters)) ?? Data("[]".utf8), as: UTF8.self),
                  lastReadChapter: 0, lastReadPosition: 0, finishedAt: nil, createdAt: nil, updatedAt: nil)
    }

    /// The chapters; the whole text as one chapter when they cannot be read.
    var decodedChapters: [ArticleChapterInfo] {
        (try? JSONDecoder().decode([ArticleChapterInfo].self, from: Data(chapters.utf8))) ?? [ArticleChapterInfo(title: title, location: 0, length: textLength)]
    }

    /// The spans; none when they cannot be read.
    var decodedSpans: [ArticleSpanInfo] {
        (try? JSONDecoder().decode([ArticleSpanInfo].self, from: Data(spans.utf8))) ?? []
    }

    /// What the list shows; it reads neither `text` nor `spans`.
    var summary: ArticleSummary {
        let chapters = decodedChapters
        // Where the person is from the start of the whole text, for the list's progress.
        let location = chapters.indices.contains(lastReadChapter) ? chapters[lastReadChapter].location + lastReadPosition : 0
        let status = finishedAt != nil ? "finished" : (location > 0 ? "inProgress" : "saved")
        return ArticleSummary(id: id.uuidString.lowercased(), title: title, source: source, sourceURL: sourceURL, byline: byline,
                              kind: kind, words: words, readingMinutes: max(1, Int((Double(words) / 230).rounded())), status: status,
                              chapterCount: chapters.count, lastReadChapter: lastReadChapter, lastReadPosition: lastReadPosition,
                              fraction: finishedAt != nil ? 1 : (textLength > 0 ? min(1, Double(location) / Double(textLength)) : 0),
                              createdAt: createdAt, finishedAt: finishedAt)
    }
}
