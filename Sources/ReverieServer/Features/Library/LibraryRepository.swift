import Fluent
import Vapor

/// A person's Listen library.
public protocol LibraryRepository: Sendable {
    /// Newest first; only `kind` when given.
    func all(kind: String?, ownedBy user: AuthenticatedUser) async throws -> [LibraryItemModel]
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemModel?
    /// The person's item with these bytes, if they have one.
    func find(fileHash: String, ownerID: UUID) async throws -> LibraryItemModel?
    func create(_ item: LibraryItemModel) async throws
    /// The removed item; nil when the person has no such item.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemModel?
    /// Whether anyone's item still uses the file or the cover with this hash.
    func isUsed(fileHash: String) async throws -> Bool
    func isUsed(artworkHash: String) async throws -> Bool
    /// Every item of a person (to clean up their files after removing them).
    func all(ownedBy userID: UUID) async throws -> [LibraryItemModel]
}

/// `LibraryRepository` on Fluent.
struct FluentLibraryRepository: LibraryRepository {
    let database: any Database

    func all(kind: String?, ownedBy user: AuthenticatedUser) async throws -> [LibraryItemModel] {
        var query = LibraryItemModel.query(ownedBy: user, on: database)
        if let kind { query = query.filter(\.$kind == kind) }
        return try await query.sort(\.$createdAt, .descending).sort(\.$title).all()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemModel? {
        try await LibraryItemModel.find(id, ownedBy: user, on: database)
    }

    func find(fileHash: String, ownerID: UUID) async throws -> LibraryItemModel? {
        try await LibraryItemModel.query(on: database).filter(\.$owner.$id == ownerID).filter(\.$fileHash == fileHash).first()
    }

    func create(_ item: LibraryItemModel) async throws {
        try await item.create(on: database)
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemModel? {
        guard let row = try await LibraryItemModel.find(id, ownedBy: user, on: database) else { return nil }
        try await row.delete(on: database)
        return row
    }

    func isUsed(fileHash: String) async throws -> Bool {
        try await LibraryItemModel.query(on: database).filter(\.$fileHash == fileHash).count() > 0
    }

    func isUsed(artworkHash: String) async throws -> Bool {
        try await LibraryItemModel.query(on: database).filter(\.$artworkHash == artworkHash).count() > 0
    }

    func all(ownedBy userID: UUID) async throws -> [LibraryItemModel] {
        try await LibraryItemModel.query(on: database).filter(\.$owner.$id == userID).all()
    }
}
