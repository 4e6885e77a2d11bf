import Fluent
import SQLKit
import Foundation

/// One listening-progress event: rows are only ever added (the position is worked out from them
/// by `Playback.ListeningProgress`). `clientID` is unique per owner, so a retry adds nothing.
public final class ProgressEventModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "progress_events"
    public static let ownerID: KeyPath<ProgressEventModel, FieldProperty<ProgressEventModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "client_id") public var clientID: String
    @Field(key: "item") public var item: String
    @Field(key: "device") public var device: String
    @Field(key: "at") public var at: Date
    @Field(key: "position") public var position: Double
    @Field(key: "kind") public var kind: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(ownerID: UUID, clientID: String, item: String, device: String, at: Date, position: Double, kind: String) {
        self.$owner.id = ownerID
        self.clientID = clientID
        self.item = item
        self.device = device
        self.at = at
        self.position = position
        self.kind = kind
    }
}

/// The `progress_events` table, looked up by owner and item.
struct CreateProgressEvents: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(ProgressEventModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("client_id", .string, .required)
            .field("item", .string, .required)
            .field("device", .string, .required)
            .field("at", .datetime, .required)
            .field("position", .double, .required)
            .field("kind", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "client_id")
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE INDEX progress_events_owner_item ON progress_events (owner_id, item)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(ProgressEventModel.schema).delete()
    }
}
