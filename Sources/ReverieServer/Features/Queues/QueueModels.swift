import Fluent
import Foundation
import SQLKit

/// A person's queue: their Up Next (`main`, one each, made on first use) or a named list.
public final class QueueModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "queues"
    public static let ownerID: KeyPath<QueueModel, FieldProperty<QueueModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "name") public var name: String
    @Field(key: "main") public var main: Bool
    /// Moved by every change to the queue's entries: the change's first write, so that a change
    /// holds SQLite's write lock before it reads the order it rewrites.
    @Field(key: "changed_at") public var changedAt: Date
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}

/// One entry of a queue, at `position` (0 first), with what the queue's screen shows of its item.
public final class QueueEntryModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "queue_entries"
    public static let ownerID: KeyPath<QueueEntryModel, FieldProperty<QueueEntryModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Parent(key: "queue_id") public var queue: QueueModel
    @Field(key: "item") public var item: String
    @Field(key: "kind") public var kind: String
    @Field(key: "title") public var title: String
    @OptionalField(key: "detail") public var detail: String?
    @OptionalField(key: "duration") public var duration: Double?
    @Field(key: "position") public var position: Int
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}

struct CreateQueues: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(QueueModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("main", .bool, .required)
            .field("changed_at", .datetime, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "name")
            .create()
        try await database.schema(QueueEntryModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("queue_id", .uuid, .required, .references(QueueModel.schema, "id", onDelete: .cascade))
            .field("item", .string, .required)
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("detail", .string)
            .field("duration", .double)
            .field("position", .int, .required)
            .field("created_at", .datetime)
            .unique(on: "queue_id", "item")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(QueueEntryModel.schema).delete()
        try await database.schema(QueueModel.schema).delete()
    }
}

/// Entries kept before their items' ids were written in small letters, as the rest of the API
/// gives them, are written so too (an item's id is a UUID or a number: nothing else changes).
struct LowercaseQueueItems: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("UPDATE \(ident: QueueEntryModel.schema) SET item = lower(item)").run()
    }

    func revert(on database: any Database) async throws {}
}
