import Fluent
import Foundation

/// Long work a person started (a LibriVox download, a feed refresh, an episode download, an
/// article import; each a `Job` value in `payload`): a row
/// with its status and progress, picked up by the server's job workers. A worker holds a job by
/// a lease it renews while it works; a job whose lease ran out (its server stopped) is picked up
/// again, and a finished job is never run twice.
public final class JobModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "jobs"
    public static let ownerID: KeyPath<JobModel, FieldProperty<JobModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    /// What to do: a `JobKind`'s raw value (kept as text, so a kind a newer server added is
    /// refused by the workers rather than unreadable here).
    @Field(key: "kind") public var kind: String
    /// What the person knows it by ("The Secret Garden").
    @Field(key: "title") public var title: String
    @Field(key: "status") public var status: JobStatus
    /// 0…1.
    @Field(key: "progress") public var progress: Double
    /// What the job is doing now, or why it failed, for the person.
    @OptionalField(key: "message") public var message: String?
    /// The job's value, JSON.
    @Field(key: "payload") public var payload: String
    /// What came of it, a `JobOutput` as JSON.
    @OptionalField(key: "result") public var result: String?
    @Field(key: "attempts") public var attempts: Int
    /// A running job belongs to its worker until then.
    @OptionalField(key: "lease_until") public var leaseUntil: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    init(ownerID: UUID, kind: JobKind, title: String, payload: String) {
        self.$owner.id = ownerID
        self.kind = kind.rawValue
        self.title = title
        self.status = .queued
        self.progress = 0
        self.payload = payload
        self.attempts = 0
    }
}

struct CreateJobs: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(JobModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("status", .string, .required)
            .field("progress", .double, .required)
            .field("message", .string)
            .field("payload", .string, .required)
            .field("result", .string)
            .field("attempts", .int, .required)
            .field("lease_until", .datetime)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(JobModel.schema).delete()
    }
}
