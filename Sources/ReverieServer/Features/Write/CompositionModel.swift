import Fluent
import Foundation
import SQLKit

/// A song being written: title, lyrics and a version that every saved edit raises.
public final class CompositionModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "compositions"
    public static let ownerID: KeyPath<CompositionModel, FieldProperty<CompositionModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "title") public var title: String
    @Field(key: "lyrics") public var lyrics: String
    @Field(key: "version") public var version: Int
    @Field(key: "created_at") public var createdAt: Date
    @Field(key: "updated_at") public var updatedAt: Date
    @OptionalField(key: "last_opened_at") public var lastOpenedAt: Date?
    @OptionalField(key: "theme_override") public var themeOverride: String?
    /// The seed's `rhymeAnalysisCache`: the last analysis, as JSON, for the lyrics of this version.
    @OptionalField(key: "rhyme_analysis_cache") public var rhymeAnalysisCache: String?
    @OptionalField(key: "conflict_of") public var conflictOf: UUID?
    /// Deleted compositions stay until restored or purged; lists leave them out.
    @OptionalField(key: "deleted_at") public var deletedAt: Date?

    public init() {}

    init(ownerID: UUID, title: String, lyrics: String, themeOverride: String?, conflictOf: UUID?, at date: Date) {
        self.$owner.id = ownerID
        self.title = title
        self.lyrics = lyrics
        self.version = 1
        self.createdAt = date
        self.updatedAt = date
        self.themeOverride = themeOverride
        self.conflictOf = conflictOf
    }
}

/// The `compositions` table, and on SQLite its FTS5 search index.
struct CreateCompositions: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(CompositionModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("title", .string, .required)
            .field("lyrics", .string, .required)
            .field("version", .int, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("last_opened_at", .datetime)
            .field("theme_override", .string)
            .field("rhyme_analysis_cache", .string)
            .field("conflict_of", .uuid)
            .field("deleted_at", .datetime)
            .create()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.raw("CREATE INDEX compositions_owner_updated ON compositions (owner_id, updated_at)").run()
        if sql.dialect.name == "sqlite" {
            // Words as typed: no folding of accents, so SQLite finds what PostgreSQL finds.
            try await sql.raw("""
                CREATE VIRTUAL TABLE compositions_fts USING fts5(
                    composition_id UNINDEXED, owner_id UNINDEXED, title, lyrics, tokenize = 'unicode61 remove_diacritics 0')
                """).run()
        }
    }

    func revert(on database: any Database) async throws {
        if let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite" {
            try await sql.raw("DROP TABLE compositions_fts").run()
        }
        try await database.schema(CompositionModel.schema).delete()
    }
}

/// SQLite's search index keyed by integer: `composition_search_keys` gives each composition a
/// stable integer that is the rowid of its row in `compositions_fts`, so a save replaces its own
/// index row by rowid instead of scanning the whole index for an unindexed UUID column (creates
/// fell from 65/s to 16.5/s as stored lyrics grew to 34 MB). A trigger drops a composition's
/// index row with it, also when the database cascades a person's removal; FTS5's `secure-delete`
/// removes the words from the index itself rather than marking them deleted.
struct KeyCompositionSearchByRowid: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite" else { return }
        for statement in [
            "DROP TABLE IF EXISTS compositions_fts",
            """
            CREATE TABLE composition_search_keys (
                id INTEGER PRIMARY KEY,
                composition_id BLOB NOT NULL UNIQUE REFERENCES compositions (id) ON DELETE CASCADE)
            """,
            """
            CREATE VIRTUAL TABLE compositions_fts USING fts5(
                title, lyrics, tokenize = 'unicode61 remove_diacritics 0')
            """,
            "INSERT INTO compositions_fts (compositions_fts, rank) VALUES ('secure-delete', 1)",
            """
            CREATE TRIGGER composition_search_keys_removed AFTER DELETE ON composition_search_keys BEGIN
                DELETE FROM compositions_fts WHERE rowid = old.id;
            END
            """,
            """
            CREATE TRIGGER compositions_removed AFTER DELETE ON compositions BEGIN
                DELETE FROM composition_search_keys WHERE composition_id = old.id;
            END
            """,
            "INSERT INTO composition_search_keys (composition_id) SELECT id FROM compositions",
            """
            INSERT INTO compositions_fts (rowid, title, lyrics)
            SELECT k.id, c.title, c.lyrics FROM compositions c JOIN composition_search_keys k ON k.composition_id = c.id
            WHERE c.deleted_at IS NULL
            """,
        ] {
            try await sql.raw(SQLQueryString(statement)).run()
        }
    }

    func revert(on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite" else { return }
        try await sql.raw("DROP TRIGGER IF EXISTS compositions_removed").run()
        try await sql.raw("DROP TABLE composition_search_keys").run()
    }
}
