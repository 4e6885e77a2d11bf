import Fluent
import Foundation
import ReverieAPI

/// A book or music track a person uploaded (or the owner imported). The file lives once under
/// `<data>/media/library/<sha256>.<ext>`, shared by everyone who has the same bytes.
public final class LibraryItemModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "library_items"
    public static let ownerID: KeyPath<LibraryItemModel, FieldProperty<LibraryItemModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    /// `book` or `music`.
    @Field(key: "kind") public var kind: String
    @Field(key: "title") public var title: String
    @OptionalField(key: "author") public var author: String?
    @OptionalField(key: "album") public var album: String?
    @OptionalField(key: "year") public var year: String?
    @OptionalField(key: "track") public var track: Int?
    @OptionalField(key: "disc") public var disc: Int?
    @Field(key: "duration_ms") public var durationMs: Int
    /// `mp4` or `mp3`.
    @Field(key: "format") public var format: String
    /// SHA-256 of the file, hex; the file is `<hash>.<format's extension>`.
    @Field(key: "file_hash") public var fileHash: String
    @Field(key: "byte_size") public var byteSize: Int
    @OptionalField(key: "original_name") public var originalName: String?
    /// SHA-256 of the cover picture; its thumbnail is `<data>/media/artwork/<hash>.jpg`.
    @OptionalField(key: "artwork_hash") public var artworkHash: String?
    /// The chapters as JSON: title, time range and readers (what the file says; whether a person
    /// heard one is theirs, in the progress log, never here).
    @Field(key: "chapters") public var chapters: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    /// One chapter as the row keeps it (rows written before readers were kept have none).
    private struct StoredChapter: Codable {
        var title: String
        var start: Double
        var end: Double
        var readers: [String]?
    }

    /// `chapters` read back (each unplayed: the progress log says otherwise).
    var chapterList: [LibraryChapter] {
        let stored = (try? JSONDecoder().decode([StoredChapter].self, from: Data(chapters.utf8))) ?? []
        return stored.map { LibraryChapter(title: $0.title, start: $0.start, end: $0.end, readers: $0.readers ?? []) }
    }

    init(ownerID: UUID, kind: String, title: String, author: String?, album: String?, year: String?, track: Int?, disc: Int?,
         durationMs: Int, format: String, fileHash: String, byteSize: Int, originalName: String?, artworkHash: String?,
         chapters: [LibraryChapter]) throws {
        self.$owner.id = ownerID
        self.kind = kind
        self.title = title
        self.author = author
        self.album = album
        self.year = year
        self.track = track
        self.disc = disc
        self.durationMs = durationMs
        self.format = format
        self.fileHash = fileHash
        self.byteSize = byteSize
        self.originalName = originalName
        self.artworkHash = artworkHash
        let stored = chapters.map { StoredChapter(title: $0.title, start: $0.start, end: $0.end, readers: $0.readers.isEmpty ? nil : $0.readers) }
        self.chapters = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
    }
}

/// The `library_items` table.
struct CreateLibraryItems: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(LibraryItemModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("author", .string)
            .field("album", .string)
            .field("year", .string)
            .field("track", .int)
            .field("disc", .int)
            .field("duration_ms", .int, .required)
            .field("format", .string, .required)
            .field("file_hash", .string, .required)
            .field("byte_size", .int64, .required)
            .field("original_name", .string)
            .field("artwork_hash", .string)
            .field("chapters", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "file_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(LibraryItemModel.schema).delete()
    }
}
