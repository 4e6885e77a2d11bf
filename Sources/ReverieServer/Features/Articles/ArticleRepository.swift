import Fluent
import Foundation
import ReverieAPI

/// A person's saved articles, answered as `ArticleRecord` values.
public protocol ArticleRepository: Sendable {
    /// Writes a new article with the record's id for its owner and answers it as written.
    func create(_ article: ArticleRecord, ownerID: UUID) async throws -> ArticleRecord
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> ArticleRecord?
    /// Every article's summary, newest first; the text and spans are never read for the list.
    func list(ownedBy user: AuthenticatedUser) async throws -> [ArticleSummary]
    /// Moves the person's place (a chapter, UTF-16 units into it) and when they finished, and
    /// answers the article as saved; nil when it is gone.
    func savePlace(_ id: UUID, ownedBy user: AuthenticatedUser, chapter: Int, position: Int, finishedAt: Date?) async throws -> ArticleRecord?
    /// False when there was nothing to delete.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

struct FluentArticleRepository: ArticleRepository {
    let database: any Database

    func create(_ article: ArticleRecord, ownerID: UUID) async throws -> ArticleRecord {
        let row = ArticleModel()
        row.id = article.id
        row.$owner.id = ownerID
        row.title = article.title
        row.source = article.source
        row.sourceURL = article.sourceURL
        row.byline = article.byline
        row.siteName = article.siteName
        row.published = article.published
        row.language = article.language
        row.kind = article.kind
        row.text = article.text
        row.textLength = article.textLength
        row.words = article.words
        row.spans = article.spans
        row.chapters = article.chapters
        row.lastReadChapter = article.lastReadChapter
        row.lastReadPosition = article.lastReadPosition
        row.finishedAt = article.finishedAt
        try await row.create(on: database)
        return try row.record()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> ArticleRecord? {
        try await ArticleModel.find(id, ownedBy: user, on: database)?.record()
    }

    func list(ownedBy user: AuthenticatedUser) async throws -> [ArticleSummary] {
        try await ArticleModel.query(ownedBy: user, on: database)
            .field(\.$id).field(\.$owner.$id).field(\.$title).field(\.$source).field(\.$sourceURL).field(\.$byline).field(\.$kind)
            .field(\.$textLength).field(\.$words).field(\.$chapters).field(\.$lastReadChapter).field(\.$lastReadPosition)
            .field(\.$finishedAt).field(\.$createdAt).field(\.$updatedAt)
            .sort(\.$createdAt, .descending).all()
            .map { row in
                ArticleRecord(id: try row.requireID(), title: row.title, source: row.source, sourceURL: row.sourceURL, byline: row.byline,
                              siteName: nil, published: nil, language: nil, kind: row.kind, text: "", textLength: row.textLength,
                              words: row.words, spans: "[]", chapters: row.chapters, lastReadChapter: row.lastReadChapter,
                              lastReadPosition: row.lastReadPosition, finishedAt: row.finishedAt, createdAt: row.createdAt,
                              updatedAt: row.updatedAt).summary
            }
    }

    func savePlace(_ id: UUID, ownedBy user: AuthenticatedUser, chapter: Int, position: Int, finishedAt: Date?) async throws -> ArticleRecord? {
        guard let row = try await ArticleModel.find(id, ownedBy: user, on: database) else { return nil }
        // Only what moved is written, so a request that changes nothing leaves the row alone.
        if row.lastReadChapter != chapter { row.lastReadChapter = chapter }
        if row.lastReadPosition != position { row.lastReadPosition = position }
        if row.finishedAt != finishedAt { row.finishedAt = finishedAt }
        try await row.save(on: database)
        return try row.record()
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let row = try await ArticleModel.find(id, ownedBy: user, on: database) else { return false }
        try await row.delete(on: database)
        return true
    }
}

extension ArticleModel {
    /// The whole row as a value; throws only for a row never saved (no id).
    func record() throws -> ArticleRecord {
        ArticleRecord(id: try requireID(), title: title, source: source, sourceURL: sourceURL, byline: byline, siteName: siteName,
                      published: published, language: language, kind: kind, text: text, textLength: textLength, words: words,
                      spans: spans, chapters: chapters, lastReadChapter: lastReadChapter, lastReadPosition: lastReadPosition,
                      finishedAt: finishedAt, createdAt: createdAt, updatedAt: updatedAt)
    }
}
