import Fluent
import Foundation

/// Audio the owner gave a Wind Down item that had none (Coming Soon): an uploaded file, levelled
/// and kept under the data directory, or a script the speech engine renders. One per item; the
/// catalog is the server's, so it belongs to no one person.
public final class SleepAudioModel: Model, @unchecked Sendable {
    public static let schema = "sleep_audio"

    @ID(key: .id) public var id: UUID?
    @Field(key: "item_id") public var itemID: String
    /// `upload`, `script` or `removed` (the catalog's audio taken away: Coming Soon).
    @Field(key: "source") public var source: String
    /// An upload's file name under `<data>/media/winddown`.
    @OptionalField(key: "file") public var file: String?
    /// The file name the owner uploaded, to show.
    @OptionalField(key: "original_name") public var originalName: String?
    @OptionalField(key: "script") public var script: String?
    /// An upload's measured length; a script's is known once rendered.
    @OptionalField(key: "duration_ms") public var durationMs: Int?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(itemID: String, source: String, file: String? = nil, originalName: String? = nil, script: String? = nil, durationMs: Int? = nil) {
        self.itemID = itemID
        self.source = source
        self.file = file
        self.originalName = originalName
        self.script = script
        self.durationMs = durationMs
    }
}

/// The `sleep_audio` table: at most one row per item.
struct CreateSleepAudio: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(SleepAudioModel.schema)
            .id()
            .field("item_id", .string, .required)
            .field("source", .string, .required)
            .field("file", .string)
            .field("original_name", .string)
            .field("script", .string)
            .field("duration_ms", .int)
            .field("created_at", .datetime)
            .unique(on: "item_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(SleepAudioModel.schema).delete()
    }
}
