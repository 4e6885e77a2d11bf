import Fluent
import Foundation

/// A meditation or poem a person wrote (or duplicated) for Bedside.
public final class BedsidePieceModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "bedside_pieces"
    public static let ownerID: KeyPath<BedsidePieceModel, FieldProperty<BedsidePieceModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    /// `meditation` or `poem`.
    @Field(key: "kind") public var kind: String
    @Field(key: "title") public var title: String
    @Field(key: "script") public var script: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    init(ownerID: UUID, kind: String, title: String, script: String) {
        self.$owner.id = ownerID
        self.kind = kind
        self.title = title
        self.script = script
    }
}

/// The `bedside_pieces` table.
struct CreateBedsidePieces: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BedsidePieceModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("script", .string, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BedsidePieceModel.schema).delete()
    }
}
