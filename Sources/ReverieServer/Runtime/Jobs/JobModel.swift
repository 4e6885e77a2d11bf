import Fluent
import Foundation

/// Long work a person started (a LibriVox download now; feed refreshes and imports later): a row
/// with its status and progress, picked up by the server's job workers. A worker holds a job by
/// a lease it renews while it works; a job whose lease ran out (its server stopped) is picked up
/// again, and a finished job is never run twice.
public final class JobModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "jobs"
    public static let ownerID: KeyPath<JobModel, FieldProperty<JobModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    /// What to do: `librivox.download`.
    @Field(key: "kind") public var kind: String
    /// What the person knows it by ("The Secret Garden").
    @Field(key: "title") public var title: String
    /// `queued`, `running`, `done` or `failed`.
    @Field(key: "status") public var status: String
    /// 0…1.
    @Field(key: "progress") public var progress: Double
    /// What the job is doing now, or why it failed, for the person.
    @OptionalField(key: "message") public var message: String?
    /// The work's input, JSON.
    @Field(key: "payload") public var payload: String
    /// What came of it (the new library item's id), JSON.
    @OptionalField(key: "result") public var result: String?
    @Field(key: "attempts") public var attempts: Int
    /// A running job belongs to its worker until then.
    @OptionalField(key: "lease_until") public var leaseUntil: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    init(ownerID: UUID, kind: String, title: String, payload: String) {
        self.$owner.id = ownerID
        self.kind = kind
        self.title = title
        self.status = "queued"
        self.progress = 0
        self.payload = payload
        self.attempts = 0
    }
}

/// What a job that makes something leaves in `result`: the id of what it made (a library item,
/// an article), which `GET /api/jobs/{id}` answers as `itemID`.
struct JobResult: Codable {
    var itemID: String

    init(_ id: UUID?) { itemID = id?.uuidString.lowercased() ?? "" }

    /// As `result` keeps it.
    var json: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data("{}".utf8), as: UTF8.self) }

    static func decode(_ json: String?) -> JobResult? { json.flatMap { try? JSONDecoder().decode(JobResult.self, from: Data($0.utf8)) } }
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
