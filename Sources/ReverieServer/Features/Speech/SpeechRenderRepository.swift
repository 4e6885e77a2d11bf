import Fluent
import Vapor

/// Speech render jobs, by owner.
public protocol SpeechRenderRepository: Sendable {
    func create(_ render: SpeechRenderModel) async throws
    /// The render with `id` if `user` owns it.
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> SpeechRenderModel?
    /// Marks a render finished (`durationMs`) or failed (`error`).
    func finish(_ id: UUID, durationMs: Int?, error: String?, at date: Date) async throws
    /// Marks every render still `rendering` as failed: after a restart nothing is running them.
    func failUnfinished(reason: String, at date: Date) async throws
    /// The cache keys of every render a person asked for (to clean up after they are removed).
    func cacheKeys(ownedBy userID: UUID) async throws -> Set<String>
    /// Whether any render row, anyone's, still names this cache key.
    func isUsed(cacheKey: String) async throws -> Bool
}

/// `SpeechRenderRepository` on Fluent.
struct FluentSpeechRenderRepository: SpeechRenderRepository {
    let database: any Database

    func create(_ render: SpeechRenderModel) async throws { try await render.create(on: database) }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> SpeechRenderModel? {
        try await SpeechRenderModel.find(id, ownedBy: user, on: database)
    }

    func finish(_ id: UUID, durationMs: Int?, error: String?, at date: Date) async throws {
        try await SpeechRenderModel.query(on: database).filter(\.$id == id)
            .set(\.$status, to: error == nil ? "done" : "failed")
            .set(\.$durationMs, to: durationMs)
            .set(\.$error, to: error)
            .set(\.$finishedAt, to: date)
            .update()
    }

    func cacheKeys(ownedBy userID: UUID) async throws -> Set<String> {
        Set(try await SpeechRenderModel.query(on: database).filter(\.$owner.$id == userID).all(\.$cacheKey))
    }

    func isUsed(cacheKey: String) async throws -> Bool {
        try await SpeechRenderModel.query(on: database).filter(\.$cacheKey == cacheKey).first() != nil
    }

    func failUnfinished(reason: String, at date: Date) async throws {
        try await SpeechRenderModel.query(on: database).filter(\.$status == "rendering")
            .set(\.$status, to: "failed")
            .set(\.$error, to: reason)
            .set(\.$finishedAt, to: date)
            .update()
    }
}
