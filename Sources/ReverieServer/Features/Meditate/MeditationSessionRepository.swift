import Fluent
import ReverieAPI
import Vapor

/// A person's meditation history, as `MeditationSessionRecord` values (a session's `id` is the
/// one the client gave it).
public protocol MeditationSessionRepository: Sendable {
    /// Saves a session unless one with the same client id exists; returns the session as stored
    /// (the earlier one, when there was one) and whether this call made it.
    func save(_ session: MeditationSessionRecord, ownedBy user: AuthenticatedUser) async throws -> (MeditationSessionRecord, created: Bool)
    /// The session that ended last.
    func latest(ownedBy user: AuthenticatedUser) async throws -> MeditationSessionRecord?
    /// Every session's end and length, for statistics.
    func durations(ownedBy user: AuthenticatedUser) async throws -> [(completedAt: Date, seconds: Int)]
}

/// `MeditationSessionRepository` on Fluent.
struct FluentMeditationSessionRepository: MeditationSessionRepository {
    let database: any Database

    func save(_ session: MeditationSessionRecord, ownedBy user: AuthenticatedUser) async throws -> (MeditationSessionRecord, created: Bool) {
        if let existing = try await find(session.id, ownedBy: user) { return (existing.record, false) }
        let row = MeditationSessionModel(ownerID: user.id, clientID: session.id, sessionType: session.sessionType, startedAt: session.startedAt,
                                         completedAt: session.completedAt, plannedDurationSeconds: session.plannedDurationSeconds,
                                         actualDurationSeconds: session.actualDurationSeconds, completedFully: session.completedFully)
        do {
            try await row.create(on: database)
            return (row.record, true)
        } catch {
            // The same upload arrived twice at once: the other one stored it.
            guard (error as? any DatabaseError)?.isConstraintFailure == true,
                  let existing = try await find(session.id, ownedBy: user) else { throw error }
            return (existing.record, false)
        }
    }

    func latest(ownedBy user: AuthenticatedUser) async throws -> MeditationSessionRecord? {
        try await MeditationSessionModel.query(ownedBy: user, on: database).sort(\.$completedAt, .descending).first()?.record
    }

    func durations(ownedBy user: AuthenticatedUser) async throws -> [(completedAt: Date, seconds: Int)] {
        try await MeditationSessionModel.query(ownedBy: user, on: database)
            .field(\.$completedAt).field(\.$actualDurationSeconds).field(\.$owner.$id)
            .all().map { ($0.completedAt, $0.actualDurationSeconds) }
    }

    private func find(_ clientID: UUID, ownedBy user: AuthenticatedUser) async throws -> MeditationSessionModel? {
        try await MeditationSessionModel.query(ownedBy: user, on: database).filter(\.$clientID == clientID).first()
    }
}

extension MeditationSessionModel {
    /// The row as the API's value.
    var record: MeditationSessionRecord {
        MeditationSessionRecord(id: clientID, sessionType: sessionType, startedAt: startedAt, completedAt: completedAt,
                                plannedDurationSeconds: plannedDurationSeconds, actualDurationSeconds: actualDurationSeconds,
                                completedFully: completedFully)
    }
}
