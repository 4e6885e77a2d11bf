import Fluent
import ReverieAPI
import Vapor

/// Speech render jobs, by owner, as `SpeechRenderRecord` values.
public protocol SpeechRenderRepository: Sendable {
    /// Writes a new render with the record's id for its owner and answers it as written.
    func create(_ render: SpeechRenderRecord, ownerID: UUID) async throws -> SpeechRenderRecord
    /// The render with `id` if `user` owns it.
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> SpeechRenderRecord?
    /// Marks a render finished (`durationMs`) or failed (`error`), if it is still rendering (a
    /// render let go of keeps the reason it was stopped).
    func finish(_ id: UUID, durationMs: Int?, error: String?, at date: Date) async throws
    /// Says that `worker` still speaks the renders it took (`heartbeat_at`).
    func heartbeat(worker: String, at date: Date) async throws
    /// Takes for `worker` each render still `rendering` whose server has not said so since
    /// `staleBefore` (it stopped); each is taken by one server only. Answers those taken.
    func takeStalled(worker: String, staleBefore: Date, at date: Date) async throws -> [SpeechRenderRecord]
    /// Of `ids`, those no longer spoken by `worker`: ended meanwhile (let go of through another
    /// server), taken over by another server, or gone (their person removed).
    func notSpoken(by worker: String, among ids: [UUID]) async throws -> [UUID]
    /// The cache keys of every render a person asked for (to clean up after they are removed).
    func cacheKeys(ownedBy userID: UUID) async throws -> Set<String>
    /// Whether any render row, anyone's, still names this cache key.
    func isUsed(cacheKey: String) async throws -> Bool
}

/// `SpeechRenderRepository` on Fluent.
struct FluentSpeechRenderRepository: SpeechRenderRepository {
    let database: any Database

    func create(_ render: SpeechRenderRecord, ownerID: UUID) async throws -> SpeechRenderRecord {
        let row = SpeechRenderModel(ownerID: ownerID, cacheKey: render.cacheKey, engine: render.engine, voice: render.voice, rate: render.rate,
                                    format: render.format, characters: render.characters, warnings: render.warnings)
        row.id = render.id
        row.status = render.status.rawValue
        row.script = render.script
        row.worker = render.worker
        row.heartbeatAt = render.heartbeatAt
        row.durationMs = render.durationMs
        row.error = render.error
        row.finishedAt = render.finishedAt
        try await row.create(on: database)
        return try row.record()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> SpeechRenderRecord? {
        try await SpeechRenderModel.find(id, ownedBy: user, on: database)?.record()
    }

    func finish(_ id: UUID, durationMs: Int?, error: String?, at date: Date) async throws {
        try await SpeechRenderModel.query(on: database).filter(\.$id == id).filter(\.$status == SpeechRenderInfo.Status.rendering.rawValue)
            .set(\.$status, to: (error == nil ? SpeechRenderInfo.Status.done : .failed).rawValue)
            .set(\.$durationMs, to: durationMs)
            .set(\.$error, to: error)
            .set(\.$finishedAt, to: date)
            .set(\.$script, to: nil)   // kept only while someone may have to speak it
            .update()
    }

    func cacheKeys(ownedBy userID: UUID) async throws -> Set<String> {
        Set(try await SpeechRenderModel.query(on: database).filter(\.$owner.$id == userID).all(\.$cacheKey))
    }

    func isUsed(cacheKey: String) async throws -> Bool {
        try await SpeechRenderModel.query(on: database).filter(\.$cacheKey == cacheKey).first() != nil
    }

    func heartbeat(worker: String, at date: Date) async throws {
        try await SpeechRenderModel.query(on: database).filter(\.$status == SpeechRenderInfo.Status.rendering.rawValue).filter(\.$worker == worker)
            .set(\.$heartbeatAt, to: date)
            .update()
    }

    func notSpoken(by worker: String, among ids: [UUID]) async throws -> [UUID] {
        guard !ids.isEmpty else { return [] }
        let spoken = try await SpeechRenderModel.query(on: database).filter(\.$id ~~ ids)
            .filter(\.$status == SpeechRenderInfo.Status.rendering.rawValue).filter(\.$worker == worker)
            .all(\.$id)
        return ids.filter { !spoken.contains($0) }
    }

    func takeStalled(worker: String, staleBefore: Date, at date: Date) async throws -> [SpeechRenderRecord] {
        let stalled = try await SpeechRenderModel.query(on: database).filter(\.$status == SpeechRenderInfo.Status.rendering.rawValue)
            .group(.or) { $0.filter(\.$heartbeatAt == nil).filter(\.$heartbeatAt < staleBefore) }
            .all()
        var taken: [SpeechRenderRecord] = []
        for row in stalled {
            let id = try row.requireID()
            // Taken only if no other server took it meanwhile: the same condition, in the update.
            try await SpeechRenderModel.query(on: database).filter(\.$id == id).filter(\.$status == SpeechRenderInfo.Status.rendering.rawValue)
                .group(.or) { $0.filter(\.$heartbeatAt == nil).filter(\.$heartbeatAt < staleBefore) }
                .set(\.$worker, to: worker).set(\.$heartbeatAt, to: date)
                .update()
            guard let now = try await SpeechRenderModel.find(id, on: database), now.worker == worker, now.status == SpeechRenderInfo.Status.rendering.rawValue,
                  now.heartbeatAt.map({ abs($0.timeIntervalSince(date)) < 0.001 }) == true else { continue }
            taken.append(try now.record())
        }
        return taken
    }
}

extension SpeechRenderModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> SpeechRenderRecord {
        SpeechRenderRecord(id: try requireID(), status: SpeechRenderInfo.Status(rawValue: status) ?? .failed, cacheKey: cacheKey, engine: engine, voice: voice, rate: rate, format: format,
                           characters: characters, durationMs: durationMs, warnings: warnings, error: error, createdAt: createdAt,
                           finishedAt: finishedAt, script: script, worker: worker, heartbeatAt: heartbeatAt)
    }
}
