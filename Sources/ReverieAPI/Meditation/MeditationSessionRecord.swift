import Foundation

/// A meditation session as the history keeps it (`POST /api/meditation-sessions` and the
/// answers of `…/latest`). Field names are the seed's snake_case.
public struct MeditationSessionRecord: Codable, Sendable, Equatable {
    /// Made by the client when the session ends; sending the same id again changes nothing.
    @LowercaseID public var id: UUID
    public var sessionType: String
    public var startedAt: Date
    public var completedAt: Date
    public var plannedDurationSeconds: Int
    public var actualDurationSeconds: Int
    public var completedFully: Bool

    public init(id: UUID, sessionType: String, startedAt: Date, completedAt: Date, plannedDurationSeconds: Int,
                actualDurationSeconds: Int, completedFully: Bool) {
        self.id = id
        self.sessionType = sessionType
        self.startedAt = startedAt
        self.completedAt = completedAt
        self.plannedDurationSeconds = plannedDurationSeconds
        self.actualDurationSeconds = actualDurationSeconds
        self.completedFully = completedFully
    }

    enum CodingKeys: String, CodingKey {
        case id
        case sessionType = "session_type"
        case startedAt = "started_at"
        case completedAt = "completed_at"
        case plannedDurationSeconds = "planned_duration_seconds"
        case actualDurationSeconds = "actual_duration_seconds"
        case completedFully = "completed_fully"
    }
}
