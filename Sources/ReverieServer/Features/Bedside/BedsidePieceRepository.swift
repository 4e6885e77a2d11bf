import Fluent
import Vapor

/// A person's own Bedside meditations and poems.
public protocol BedsidePieceRepository: Sendable {
    /// The person's pieces of one kind, oldest first.
    func all(kind: String, ownedBy user: AuthenticatedUser) async throws -> [BedsidePieceModel]
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel?
    func create(kind: String, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel
    /// The edited piece; nil when the person has no such piece.
    func update(_ id: UUID, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel?
    /// False when the person has no such piece.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// `BedsidePieceRepository` on Fluent.
struct FluentBedsidePieceRepository: BedsidePieceRepository {
    let database: any Database

    func all(kind: String, ownedBy user: AuthenticatedUser) async throws -> [BedsidePieceModel] {
        try await BedsidePieceModel.query(ownedBy: user, on: database).filter(\.$kind == kind).sort(\.$createdAt).sort(\.$title).all()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel? {
        try await BedsidePieceModel.find(id, ownedBy: user, on: database)
    }

    func create(kind: String, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel {
        let piece = BedsidePieceModel(ownerID: user.id, kind: kind, title: title, script: script)
        try await piece.create(on: database)
        return piece
    }

    func update(_ id: UUID, title: String, script: String, ownedBy user: AuthenticatedUser) async throws -> BedsidePieceModel? {
        guard let piece = try await find(id, ownedBy: user) else { return nil }
        piece.title = title
        piece.script = script
        try await piece.update(on: database)
        return piece
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let piece = try await find(id, ownedBy: user) else { return false }
        try await piece.delete(on: database)
        return true
    }
}
