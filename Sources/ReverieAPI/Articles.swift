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

/// A part of an article or book: a stretch of its text, in UTF-16 code units.
public struct ArticleChapterInfo: Codable, Sendable, Equatable {
    public var title: String
    public var location: Int
    public var length: Int
    public init(title: String, location: Int, length: Int) {
        (self.title, self.location, self.length) = (title, location, length)
    }
}

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

/// `GET /api/articles`.
public struct ArticleList: Codable, Sendable, Equatable {
    public var items: [ArticleSummary]
    public init(items: [ArticleSummary]) { self.items = items }
}

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

/// `POST /api/articles`: a page to fetch (`url`) or text to keep (`text`, with a `title`).
public struct ArticleSaveRequest: Codable, Sendable, Equatable {
    public var url: String?
    public var text: String?
    public var title: String?
    public init(url: String? = nil, text: String? = nil, title: String? = nil) {
        (self.url, self.text, self.title) = (url, text, title)
    }
}

/// `PATCH /api/articles/{id}`: where the person is, or that they finished (or not).
public struct ArticleUpdateRequest: Codable, Sendable, Equatable {
    public var lastReadChapter: Int?
    public var lastReadPosition: Int?
    public var finished: Bool?
    public init(lastReadChapter: Int? = nil, lastReadPosition: Int? = nil, finished: Bool? = nil) {
        (self.lastReadChapter, self.lastReadPosition, self.finished) = (lastReadChapter, lastReadPosition, finished)
    }
}

/// `GET /api/articles/{id}/chapters/{n}/speech`: the chapter as render segments. Render each
/// segment's `script` with `POST /api/speech/renders`; a timeline phrase's `line` (1-based) is
/// spoken from `lines[line - 1]` of the text (UTF-16 units of the whole text).
public struct ArticleSpeechInfo: Codable, Sendable, Equatable {
    public struct Line: Codable, Sendable, Equatable {
        public var location: Int
        public var length: Int
        public init(location: Int, length: Int) { (self.location, self.length) = (location, length) }
    }
    public struct Segment: Codable, Sendable, Equatable {
        public var script: String
        public var lines: [Line]
        public init(script: String, lines: [Line]) { (self.script, self.lines) = (script, lines) }
    }
    public var chapter: Int
    public var segments: [Segment]
    public init(chapter: Int, segments: [Segment]) { (self.chapter, self.segments) = (chapter, segments) }
}
