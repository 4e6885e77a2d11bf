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
    /// The order events reached the server in (`ProgressArrival`): at the same device time, the
    /// later arrival decides.
    @OptionalField(key: "arrival") public var arrival: Int64?

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

/// Each event's order of arrival, and each person's, item's and device's deciding event kept
/// beside the log (`progress_places`), so a write and a read cost the same after 5,000 events
/// as after one. The log stays the truth: the places are rebuilt from it here, and
/// `FluentProgressRepository.rebuildPlaces` does the same at any time.
struct AddProgressPlaces: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(ProgressEventModel.schema).field("arrival", .int64).update()
        try await database.schema(ProgressPlaceModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("item", .string, .required)
            .field("device", .string, .required)
            .field("client_id", .string, .required)
            .field("at", .datetime, .required)
            .field("position", .double, .required)
            .field("kind", .string, .required)
            .field("arrival", .int64, .required)
            .unique(on: "owner_id", "item", "device")
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        // The events already kept arrived in the order they were stored.
        try await sql.raw("""
            UPDATE progress_events SET arrival = ordered.n FROM (
                SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM progress_events
            ) AS ordered WHERE progress_events.id = ordered.id
            """).run()
        try await sql.raw("CREATE INDEX progress_places_owner_item ON progress_places (owner_id, item)").run()
        try await FluentProgressRepository.rebuildPlaces(on: sql)
    }

    func revert(on database: any Database) async throws {
        try await database.schema(ProgressPlaceModel.schema).delete()
        try await database.schema(ProgressEventModel.schema).deleteField("arrival").update()
    }
}

/// The deciding event of one person's item on one device (ListeningProgress's rule over that
/// device's events): the item's place is the latest of its devices' places.
final class ProgressPlaceModel: Model, UserOwnedModel, @unchecked Sendable {
    static let schema = "progress_places"
    static let ownerID: KeyPath<ProgressPlaceModel, FieldProperty<ProgressPlaceModel, UUID>> = \.$owner.$id

    @ID(key: .id) var id: UUID?
    @Parent(key: "owner_id") var owner: UserModel
    @Field(key: "item") var item: String
    @Field(key: "device") var device: String
    @Field(key: "client_id") var clientID: String
    @Field(key: "at") var at: Date
    @Field(key: "position") var position: Double
    @Field(key: "kind") var kind: String
    @Field(key: "arrival") var arrival: Int64

    init() {}
}
