import Fluent
import Foundation
import SQLKit

/// What wallabag's apps keep on an article that Reverie's own pages do not: a star, and tags.
struct ArticleMark: Sendable, Equatable {
    var starredAt: Date?
    var tags: [String]
    /// When an app last changed the entry (archived, starred, tagged); nil before any change.
    var updatedAt: Date? = nil
    static let none = ArticleMark(starredAt: nil, tags: [])
}

protocol ArticleMarkRepository: Sendable {
    /// The person's marks, by article.
    func marks(ownerID: UUID) async throws -> [UUID: ArticleMark]
    /// Writes an article's marks, changed at `now` (what wallabag's `since` reads).
    func save(_ mark: ArticleMark, article: UUID, ownerID: UUID, now: Date) async throws
}

struct FluentArticleMarkRepository: ArticleMarkRepository {
    let database: any Database

    func marks(ownerID: UUID) async throws -> [UUID: ArticleMark] {
        let sql = database as! any SQLDatabase
        let rows = try await sql.raw("SELECT article_id, starred_at, tags, updated_at FROM article_marks WHERE owner_id = \(bind: ownerID)").all()
        var marks: [UUID: ArticleMark] = [:]
        for row in rows {
            let tags = (try? JSONDecoder().decode([String].self, from: Data(try row.decode(column: "tags", as: String.self).utf8))) ?? []
            marks[try row.decode(column: "article_id", as: UUID.self)] = ArticleMark(starredAt: try row.decode(column: "starred_at", as: Date?.self), tags: tags,
                                                                                      updatedAt: try row.decode(column: "updated_at", as: Date?.self))
        }
        return marks
    }

    func save(_ mark: ArticleMark, article: UUID, ownerID: UUID, now: Date) async throws {
        let sql = database as! any SQLDatabase
        // Kept when empty too: its time says the entry changed (an unstar, an unarchive).
        let tags = String(decoding: try JSONEncoder().encode(mark.tags), as: UTF8.self)
        try await sql.raw("""
            INSERT INTO article_marks (id, owner_id, article_id, starred_at, tags, updated_at)
            VALUES (\(bind: UUID()), \(bind: ownerID), \(bind: article), \(bind: mark.starredAt), \(bind: tags), \(bind: now))
            ON CONFLICT (article_id) DO UPDATE SET starred_at = excluded.starred_at, tags = excluded.tags, updated_at = excluded.updated_at
            """).run()
    }
}
