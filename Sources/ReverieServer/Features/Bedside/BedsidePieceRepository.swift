import Fluent
import Vapor

/// A person's own Bedside meditations and poems, as `BedsidePieceRecord` values.
public protocol BedsidePieceRepository: Sendable {
    /// The person's pieces of one kind, oldest first.
    func all(kind: String, ownedBy user: AuthenticatedUser) async throws -> [BedsidePieceRecord]
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord?
    /// Writes a new piece and answers it as written.
    func create(kind: String, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord
    /// The edited piece; nil when the person has no such piece.
    func update(_ id: UUID, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord?
    /// False when the person has no such piece.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// `BedsidePieceRepository` on Fluent.
struct FluentBedsidePieceRepository: BedsidePieceRepository {
    let database: any Database

    func all(kind: String, ownedBy user: AuthenticatedUser) async throws -> [BedsidePieceRecord] {
        try await BedsidePieceModel.query(ownedBy: user, on: database).filter(\.$kind == kind).sort(\.$createdAt).sort(\.$title).all()
            .map { try $0.record() }
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord? {
        try await row(id, ownedBy: user)?.record()
    }

    func create(kind: String, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord {
        let piece = BedsidePieceModel(ownerID: user.id, kind: kind, title: title, script: script)
        try await piece.create(on: database)
        return try piece.record()
    }

    func update(_ id: UUID, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceRecord? {
        guard let piece = try await row(id, ownedBy: user) else { return nil }
        piece.title = title
        piece.script = script
        try await piece.update(on: database)
        return try piece.record()
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let piece = try await row(id, ownedBy: user) else { return false }
        try await piece.delete(on: database)
        return true
    }

    private func row(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel? {
        try await BedsidePieceModel.find(id, ownedBy: user, on: database)
    }
}

extension BedsidePieceModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> BedsidePieceRecord {
        BedsidePieceRecord(id: try requireID(), kind: kind, title: title, script: script, createdAt: createdAt, updatedAt: updatedAt)
    }
}
