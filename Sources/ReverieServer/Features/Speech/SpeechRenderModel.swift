import Fluent
import ReverieAPI
import Foundation

/// One user's request to speak a script. The audio itself lives in the content-addressed speech
/// cache under `cacheKey`, so identical requests from anyone share one file.
public final class SpeechRenderModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "speech_renders"
    public static let ownerID: KeyPath<SpeechRenderModel, FieldProperty<SpeechRenderModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    /// `rendering`, `done` or `failed`.
    @Field(key: "status") public var status: String
    @Field(key: "cache_key") public var cacheKey: String
    @Field(key: "engine") public var engine: String
    @OptionalField(key: "voice") public var voice: String?
    @Field(key: "rate") public var rate: Double
    @Field(key: "format") public var format: String
    @Field(key: "characters") public var characters: Int
    @OptionalField(key: "duration_ms") public var durationMs: Int?
    /// The parser's warnings as JSON.
    @Field(key: "warnings") public var warnings: String
    @OptionalField(key: "error") public var error: String?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @OptionalField(key: "finished_at") public var finishedAt: Date?
    /// The script, so another server can speak it when the one speaking it stops.
    @OptionalField(key: "script") public var script: String?
    /// The server speaking it (`SpeechJobs.worker`), and when it last said it still was.
    @OptionalField(key: "worker") public var worker: String?
    @OptionalField(key: "heartbeat_at") public var heartbeatAt: Date?

    public init() {}

    init(ownerID: UUID, cacheKey: String, engine: String, voice: String?, rate: Double, format: String, characters: Int, warnings: String) {
        self.$owner.id = ownerID
        self.status = SpeechRenderInfo.Status.rendering.rawValue
        self.cacheKey = cacheKey
        self.engine = engine
        self.voice = voice
        self.rate = rate
        self.format = format
        self.characters = characters
        self.warnings = warnings
    }
}

/// The `speech_renders` table.
struct CreateSpeechRenders: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(SpeechRenderModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("cache_key", .string, .required)
            .field("engine", .string, .required)
            .field("voice", .string)
            .field("rate", .double, .required)
            .field("format", .string, .required)
            .field("characters", .int, .required)
            .field("duration_ms", .int)
            .field("warnings", .string, .required)
            .field("error", .string)
            .field("created_at", .datetime)
            .field("finished_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(SpeechRenderModel.schema).delete()
    }
}

/// Renders that several servers share (issue 32): the script, the server speaking it and its
/// heartbeat, so a render whose server stopped is taken over by another.
struct AddRenderWorkers: AsyncMigration {
    // One column per statement: SQLite adds one at a time.
    func prepare(on database: any Database) async throws {
        try await database.schema(SpeechRenderModel.schema).field("script", .string).update()
        try await database.schema(SpeechRenderModel.schema).field("worker", .string).update()
        try await database.schema(SpeechRenderModel.schema).field("heartbeat_at", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        for field in ["script", "worker", "heartbeat_at"] {
            try await database.schema(SpeechRenderModel.schema).deleteField(.key(.string(field))).update()
        }
    }
}
