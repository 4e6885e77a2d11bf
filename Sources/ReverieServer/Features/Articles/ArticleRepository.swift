import Fluent
import Foundation

/// A person's saved articles.
public protocol ArticleRepository: Sendable {
    func create(_ article: ArticleModel) async throws
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> ArticleModel?
    /// Every article, newest first, without its text or spans (the list never shows them).
    func list(ownedBy user: AuthenticatedUser) async throws -> [ArticleModel]
    func save(_ article: ArticleModel) async throws
    /// False when there was nothing to delete.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

struct FluentArticleRepository: ArticleRepository {
    let database: any Database

    func create(_ article: ArticleModel) async throws { try await article.create(on: database) }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> ArticleModel? {
        try await ArticleModel.find(id, ownedBy: user, on: database)
    }

    func list(ownedBy user: AuthenticatedUser) async throws -> [ArticleModel] {
        try await ArticleModel.query(ownedBy: user, on: database)
            .field(\.$id).field(\.$owner.$id).field(\.$title).field(\.$source).field(\.$sourceURL).field(\.$byline).field(\.$kind)
            .field(\.$textLength).field(\.$words).field(\.$chapters).field(\.$lastReadChapter).field(\.$lastReadPosition)
            .field(\.$finishedAt).field(\.$createdAt).field(\.$updatedAt)
            .sort(\.$createdAt, .descending).all()
    }

    func save(_ article: ArticleModel) async throws { try await article.save(on: database) }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let row = try await find(id, ownedBy: user) else { return false }
        try await row.delete(on: database)
        return true
    }
}
