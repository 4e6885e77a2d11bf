import Fluent
import Vapor

/// A person's Listen library, as `LibraryItemRecord` values.
public protocol LibraryRepository: Sendable {
    /// Newest first; only `kind` when given.
    func all(kind: String?, ownedBy user: AuthenticatedUser) async throws -> [LibraryItemRecord]
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemRecord?
    /// The person's item with these bytes, if they have one.
    func find(fileHash: String, ownerID: UUID) async throws -> LibraryItemRecord?
    /// Writes a new item with the record's id for its owner and answers it as written. Throws when
    /// the owner already has an item with the same bytes (the unique index on owner and hash).
    func create(_ item: LibraryItemRecord, ownerID: UUID) async throws -> LibraryItemRecord
    /// The removed item; nil when the person has no such item.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemRecord?
    /// Whether anyone's item still uses the file or the cover with this hash.
    func isUsed(fileHash: String) async throws -> Bool
    func isUsed(artworkHash: String) async throws -> Bool
    /// Every item of a person (to clean up their files after removing them).
    func all(ownedBy userID: UUID) async throws -> [LibraryItemRecord]
}

/// `LibraryRepository` on Fluent.
struct FluentLibraryRepository: LibraryRepository {
    let database: any Database

    func all(kind: String?, ownedBy user: AuthenticatedUser) async throws -> [LibraryItemRecord] {
        var query = LibraryItemModel.query(ownedBy: user, on: database)
        if let kind { query = query.filter(\.$kind == kind) }
        return try await query.sort(\.$createdAt, .descending).sort(\.$title).all().map { try $0.record() }
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemRecord? {
        try await LibraryItemModel.find(id, ownedBy: user, on: database)?.record()
    }

    func find(fileHash: String, ownerID: UUID) async throws -> LibraryItemRecord? {
        try await LibraryItemModel.query(on: database).filter(\.$owner.$id == ownerID).filter(\.$fileHash == fileHash).first()?.record()
    }

    func create(_ item: LibraryItemRecord, ownerID: UUID) async throws -> LibraryItemRecord {
        let row = try LibraryItemModel(item, ownerID: ownerID)
        try await row.create(on: database)
        return try row.record()
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> LibraryItemRecord? {
        guard let row = try await LibraryItemModel.find(id, ownedBy: user, on: database) else { return nil }
        try await row.delete(on: database)
        return try row.record()
    }

    func isUsed(fileHash: String) async throws -> Bool {
        try await LibraryItemModel.query(on: database).filter(\.$fileHash == fileHash).count() > 0
    }

    func isUsed(artworkHash: String) async throws -> Bool {
        try await LibraryItemModel.query(on: database).filter(\.$artworkHash == artworkHash).count() > 0
    }

    func all(ownedBy userID: UUID) async throws -> [LibraryItemRecord] {
        try await LibraryItemModel.query(on: database).filter(\.$owner.$id == userID).all().map { try $0.record() }
    }
}

extension LibraryItemModel {
    /// A new row for `ownerID` holding the record, with the record's id.
    convenience init(_ item: LibraryItemRecord, ownerID: UUID) throws {
        try self.init(ownerID: ownerID, kind: item.kind, title: item.title, author: item.author, album: item.album, year: item.year,
                      track: item.track, disc: item.disc, durationMs: item.durationMs, format: item.format, fileHash: item.fileHash,
                      byteSize: item.byteSize, originalName: item.originalName, artworkHash: item.artworkHash, chapters: item.chapters)
        id = item.id
    }

    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> LibraryItemRecord {
        LibraryItemRecord(id: try requireID(), kind: kind, title: title, author: author, album: album, year: year, track: track,
                          disc: disc, durationMs: durationMs, format: format, fileHash: fileHash, byteSize: byteSize,
                          originalName: originalName, artworkHash: artworkHash, chapters: chapterList, createdAt: createdAt)
    }
}
