import Fluent
import Foundation

/// An article or document a person saved to read and listen to: the plain text the voice reads,
/// the spans that style it and its chapters (JSON, UTF-16 offsets), and how far they got.
public final class ArticleModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "articles"
    public static let ownerID: KeyPath<ArticleModel, FieldProperty<ArticleModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "title") public var title: String
    /// The site's name, or the file's name.
    @Field(key: "source") public var source: String
    @OptionalField(key: "source_url") public var sourceURL: String?
    @OptionalField(key: "byline") public var byline: String?
    @OptionalField(key: "site_name") public var siteName: String?
    @OptionalField(key: "published") public var published: String?
    @OptionalField(key: "language") public var language: String?
    /// `web`, `text`, `html`, `txt`, `epub` or `pdf`.
    @Field(key: "kind") public var kind: String
    @Field(key: "text") public var text: String
    /// UTF-16 length of `text`.
    @Field(key: "text_length") public var textLength: Int
    @Field(key: "words") public var words: Int
    /// `[ArticleSpanInfo]` as JSON.
    @Field(key: "spans") public var spans: String
    /// `[ArticleChapterInfo]` as JSON.
    @Field(key: "chapters") public var chapters: String
    /// The seed's `lastReadChapter` (0-based) and `lastReadPosition` (UTF-16 units into it).
    @Field(key: "last_read_chapter") public var lastReadChapter: Int
    @Field(key: "last_read_position") public var lastReadPosition: Int
    @OptionalField(key: "finished_at") public var finishedAt: Date?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}
}

struct CreateArticles: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(ArticleModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("title", .string, .required)
            .field("source", .string, .required)
            .field("source_url", .string)
            .field("byline", .string)
            .field("site_name", .string)
            .field("published", .string)
            .field("language", .string)
            .field("kind", .string, .required)
            .field("text", .string, .required)
            .field("text_length", .int, .required)
            .field("words", .int, .required)
            .field("spans", .string, .required)
            .field("chapters", .string, .required)
            .field("last_read_chapter", .int, .required)
            .field("last_read_position", .int, .required)
            .field("finished_at", .datetime)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(ArticleModel.schema).delete()
    }
}
