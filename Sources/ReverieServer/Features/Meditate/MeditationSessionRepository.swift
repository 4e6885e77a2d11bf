import Fluent
import Vapor

/// A person's meditation history.
public protocol MeditationSessionRepository: Sendable {
    /// Saves a session unless one with the same client id exists; returns the stored row and
    /// whether this call made it.
    func save(_ session: MeditationSessionModel, ownedBy user: AuthenticatedUser) async throws -> (MeditationSessionModel, created: Bool)
    /// The session that ended last.
    func latest(ownedBy user: AuthenticatedUser) async throws -> MeditationSessionModel?
    /// Every session's end and length, for statistics.
    func durations(ownedBy user: AuthenticatedUser) async throws -> [(completedAt: Date, seconds: Int)]
}

/// `MeditationSessionRepository` on Fluent.
struct FluentMeditationSessionRepository: MeditationSessionRepository {
    let database: any Database

    func save(_ session: MeditationSessionModel, ownedBy user: AuthenticatedUser) async throws -> (MeditationSessionModel, created: Bool) {
        if let existing = try await find(session.clientID, ownedBy: user) { return (existing, false) }
        session.$owner.id = user.id
        do {
            try await session.create(on: database)
            return (session, true)
        } catch {
            // The same upload arrived twice at once: the other one stored it.
            guard (error as? any DatabaseError)?.isConstraintFailure == true,
                  let existing = try await find(session.clientID, ownedBy: user) else { throw error }
            return (existing, false)
        }
    }

    func latest(ownedBy user: AuthenticatedUser) async throws -> MeditationSessionModel? {
        try await MeditationSessionModel.query(ownedBy: user, on: database).sort(\.$completedAt, .descending).first()
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
