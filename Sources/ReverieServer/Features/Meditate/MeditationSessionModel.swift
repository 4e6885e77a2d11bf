import Fluent
import Foundation

/// One finished meditation, complete or ended early. `clientID` is the id the client made, unique
/// per owner, so a retried upload finds the row it already made.
public final class MeditationSessionModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "meditation_sessions"
    public static let ownerID: KeyPath<MeditationSessionModel, FieldProperty<MeditationSessionModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "client_id") public var clientID: UUID
    @Field(key: "session_type") public var sessionType: String
    @Field(key: "started_at") public var startedAt: Date
    @Field(key: "completed_at") public var completedAt: Date
    @Field(key: "planned_duration_seconds") public var plannedDurationSeconds: Int
    @Field(key: "actual_duration_seconds") public var actualDurationSeconds: Int
    @Field(key: "completed_fully") public var completedFully: Bool
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(ownerID: UUID, clientID: UUID, sessionType: String, startedAt: Date, completedAt: Date,
         plannedDurationSeconds: Int, actualDurationSeconds: Int, completedFully: Bool) {
        self.$owner.id = ownerID
        self.clientID = clientID
        self.sessionType = sessionType
        self.startedAt = startedAt
        self.completedAt = completedAt
        self.plannedDurationSeconds = plannedDurationSeconds
        self.actualDurationSeconds = actualDurationSeconds
        self.completedFully = completedFully
    }
}

/// The `meditation_sessions` table.
struct CreateMeditationSessions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MeditationSessionModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("client_id", .uuid, .required)
            .field("session_type", .string, .required)
            .field("started_at", .datetime, .required)
            .field("completed_at", .datetime, .required)
            .field("planned_duration_seconds", .int, .required)
            .field("actual_duration_seconds", .int, .required)
            .field("completed_fully", .bool, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "client_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MeditationSessionModel.schema).delete()
    }
}
