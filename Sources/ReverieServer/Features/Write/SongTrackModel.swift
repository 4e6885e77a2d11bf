import Fluent
import Foundation

/// A Listen music item attached to a song, with the song's A–B loop on it.
public final class SongTrackModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "song_tracks"
    public static let ownerID: KeyPath<SongTrackModel, FieldProperty<SongTrackModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Parent(key: "composition_id") public var composition: CompositionModel
    @Parent(key: "library_item_id") public var item: LibraryItemModel
    /// Seconds; both set or neither.
    @OptionalField(key: "loop_start") public var loopStart: Double?
    @OptionalField(key: "loop_end") public var loopEnd: Double?
    @Field(key: "loop_enabled") public var loopEnabled: Bool
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(ownerID: UUID, compositionID: UUID, itemID: UUID) {
        self.$owner.id = ownerID
        self.$composition.id = compositionID
        self.$item.id = itemID
        self.loopEnabled = false
    }
}

/// The `song_tracks` table: a song's tracks go with the song, and with the music item.
struct CreateSongTracks: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(SongTrackModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("composition_id", .uuid, .required, .references(CompositionModel.schema, "id", onDelete: .cascade))
            .field("library_item_id", .uuid, .required, .references(LibraryItemModel.schema, "id", onDelete: .cascade))
            .field("loop_start", .double)
            .field("loop_end", .double)
            .field("loop_enabled", .bool, .required)
            .field("created_at", .datetime)
            .unique(on: "composition_id", "library_item_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(SongTrackModel.schema).delete()
    }
}
