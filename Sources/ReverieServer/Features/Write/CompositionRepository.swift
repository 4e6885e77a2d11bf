import Fluent
import ReverieAPI
import SQLKit
import Vapor

/// A person's compositions, answered as the API's `Composition` values (with their kept rhyme
/// analysis; the store never answers a deleted one).
public protocol CompositionRepository: Sendable {
    /// A new composition (with `id` when the device made one; a row with it already is a
    /// constraint failure).
    func create(id: UUID?, title: String, lyrics: String, themeOverride: String?, conflictOf: UUID?, ownedBy user: AuthenticatedUser, at date: Date) async throws -> Composition
    /// The composition unless it is deleted (or someone else's).
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Composition?
    /// Every song the person has (not the deleted ones), newest edit first.
    func all(ownedBy user: AuthenticatedUser) async throws -> [Composition]
    /// What the song list shows, newest edit first: with no words every song and the start of
    /// its lyrics; with words, the songs where every word starts a word of the title or the
    /// lyrics, and their whole lyrics (for the snippet around the hit).
    func listings(matching words: [String], ownedBy user: AuthenticatedUser) async throws -> [CompositionListing]
    /// Saves an edit made from `version`; nil when the stored version is another (someone saved first).
    func update(_ id: UUID, title: String, lyrics: String, themeOverride: String?, fromVersion version: Int,
                ownedBy user: AuthenticatedUser, at date: Date) async throws -> Composition?
    /// Keeps the rhyme analysis (JSON) of the lyrics of `version` — the seed's `rhymeAnalysisCache`;
    /// nothing happens when the song has moved on to another version.
    func setAnalysisCache(_ id: UUID, _ json: String, forVersion version: Int, ownedBy user: AuthenticatedUser) async throws
    func markOpened(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws
    /// Deletes (restorable); false when there was nothing to delete.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws -> Bool
    /// Brings a deleted composition back; nil when there is none to restore.
    func restore(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Composition?
}

/// One row of the song list.
public struct CompositionListing: Sendable, Equatable {
    /// Characters of the lyrics a plain list reads: enough for the first non-empty line.
    static let startLength = 2_000
    public var id: UUID
    public var title: String
    public var version: Int
    public var updatedAt: Date
    /// The whole lyrics when searching; otherwise their first `startLength` characters.
    public var lyrics: String
}

/// `CompositionRepository` on Fluent, with SQLite's FTS5 index or PostgreSQL's regular expressions.
struct FluentCompositionRepository: CompositionRepository {
    let database: any Database

    private var sql: (any SQLDatabase)? { database as? any SQLDatabase }
    private var usesFTS: Bool { sql?.dialect.name == "sqlite" }

    func create(id: UUID?, title: String, lyrics: String, themeOverride: String?, conflictOf: UUID?, ownedBy user: AuthenticatedUser, at date: Date) async throws -> Composition {
        let row = CompositionModel(ownerID: user.id, title: title, lyrics: lyrics, themeOverride: themeOverride, conflictOf: conflictOf, at: date)
        if let id { row.id = id }
        try await database.transaction { database in
            try await row.create(on: database)
            try await Self.index(row, on: database)
        }
        return try row.composition()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Composition? {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).filter(\.$deletedAt == nil).first()?.composition()
    }

    func all(ownedBy user: AuthenticatedUser) async throws -> [Composition] {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$deletedAt == nil).sort(\.$updatedAt, .descending).all()
            .map { try $0.composition() }
    }

    func listings(matching words: [String], ownedBy user: AuthenticatedUser) async throws -> [CompositionListing] {
        guard let sql else { return [] }
        // Only the columns the list shows: never the rhyme analysis, and without a search only
        // the start of the lyrics (a snippet is the first line).
        let lyrics: any SQLExpression
        if words.isEmpty {
            let first: any SQLExpression = SQLLiteral.numeric("1")
            let length: any SQLExpression = SQLLiteral.numeric(String(CompositionListing.startLength))
            lyrics = SQLFunction("substr", args: [SQLColumn("lyrics"), first, length])
        } else {
            lyrics = SQLColumn("lyrics")
        }
        var query = sql.select().column("id").column("title").column("version").column("updated_at")
            .column(SQLAlias(lyrics, as: SQLIdentifier("lyrics")))
            .from(CompositionModel.schema)
            .where("owner_id", .equal, user.id).where("deleted_at", .is, SQLLiteral.null)
        if !words.isEmpty, usesFTS {
            // One query: the index's matches as a subquery. Each word as a prefix: "moon"* "rive"*
            // (the words are letters and digits only).
            let match = words.map { "\"\($0)\"*" }.joined(separator: " ")
            let matches: SQLQueryString = """
                (SELECT k.composition_id FROM compositions_fts JOIN composition_search_keys k ON k.id = compositions_fts.rowid
                WHERE compositions_fts MATCH \(bind: match))
                """
            query = query.where(SQLColumn("id"), .in, matches)
        } else if !words.isEmpty {
            for word in words {
                let pattern = "\\m" + word
                let title = SQLBinaryExpression(left: SQLColumn("title"), op: SQLRaw("~*"), right: SQLBind(pattern))
                let text = SQLBinaryExpression(left: SQLColumn("lyrics"), op: SQLRaw("~*"), right: SQLBind(pattern))
                query = query.where(SQLGroupExpression(SQLBinaryExpression(left: title, op: SQLBinaryOperator.or, right: text)))
            }
        }
        return try await query.orderBy("updated_at", .descending).all().map { row in
            let id = try row.decode(column: "id", as: UUID.self)
            let title = try row.decode(column: "title", as: String.self)
            let version = try row.decode(column: "version", as: Int.self)
            let updatedAt = try row.decode(column: "updated_at", as: Date.self)
            let lyrics = try row.decode(column: "lyrics", as: String.self)
            return CompositionListing(id: id, title: title, version: version, updatedAt: updatedAt, lyrics: lyrics)
        }
    }

    func update(_ id: UUID, title: String, lyrics: String, themeOverride: String?, fromVersion version: Int,
                ownedBy user: AuthenticatedUser, at date: Date) async throws -> Composition? {
        try await database.transaction { database in
            // One statement decides: the version must still be the one the edit started from.
            let changed = try await (database as! any SQLDatabase).update(CompositionModel.schema)
                .set("title", to: title).set("lyrics", to: lyrics).set("theme_override", to: themeOverride)
                .set("updated_at", to: date).set("rhyme_analysis_cache", to: SQLLiteral.null)
                .set("version", to: SQLBinaryExpression(left: SQLColumn("version"), op: SQLBinaryOperator.add, right: SQLLiteral.numeric("1")))
                .where("id", .equal, id).where("owner_id", .equal, user.id).where("version", .equal, version)
                .where("deleted_at", .is, SQLLiteral.null)
                .returning("version").all()
            guard !changed.isEmpty, let row = try await CompositionModel.find(id, ownedBy: user, on: database) else { return nil }
            try await Self.index(row, on: database)
            return try row.composition()
        }
    }

    func setAnalysisCache(_ id: UUID, _ json: String, forVersion version: Int, ownedBy user: AuthenticatedUser) async throws {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).filter(\.$version == version)
            .set(\.$rhymeAnalysisCache, to: json).update()
    }

    func markOpened(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).set(\.$lastOpenedAt, to: date).update()
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws -> Bool {
        try await setDeleted(id, date, ownedBy: user) != nil
    }

    func restore(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Composition? {
        try await setDeleted(id, nil, ownedBy: user)?.composition()
    }

    /// Deletes (`date`) or restores (nil) a composition and keeps the index in step; nil when it
    /// was not in the other state. The transaction starts with its write: on SQLite a transaction
    /// that reads first and writes later cannot wait for another connection's write (it fails at
    /// once with SQLITE_BUSY), so no write transaction here begins with a read.
    private func setDeleted(_ id: UUID, _ date: Date?, ownedBy user: AuthenticatedUser) async throws -> CompositionModel? {
        try await database.transaction { database in
            let changed = try await (database as! any SQLDatabase).update(CompositionModel.schema)
                .set("deleted_at", to: date.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
                .where("id", .equal, id).where("owner_id", .equal, user.id)
                .where("deleted_at", date == nil ? .isNot : .is, SQLLiteral.null)
                .returning("id").all()
            guard !changed.isEmpty, let row = try await CompositionModel.find(id, ownedBy: user, on: database) else { return nil }
            try await Self.index(row, on: database)
            return row
        }
    }

    /// Keeps the SQLite search index in step with a row (a deleted row leaves the index). The
    /// row's integer key is its rowid in `compositions_fts`, so only its own index row is touched.
    static func index(_ row: CompositionModel, on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite", let id = row.id else { return }
        let key = try await sql.raw("""
            INSERT INTO composition_search_keys (composition_id) VALUES (\(bind: id))
            ON CONFLICT (composition_id) DO UPDATE SET composition_id = excluded.composition_id RETURNING id
            """).first().map { try $0.decode(column: "id", as: Int.self) }
        guard let key else { return }
        try await sql.raw("DELETE FROM compositions_fts WHERE rowid = \(bind: key)").run()
        guard row.deletedAt == nil else { return }
        try await sql.raw("INSERT INTO compositions_fts (rowid, title, lyrics) VALUES (\(bind: key), \(bind: row.title), \(bind: row.lyrics))").run()
    }
}

extension CompositionModel {
    /// The row as the API's value; throws only for a row never saved (no id). A theme this
    /// server does not know reads as none.
    func composition() throws -> Composition {
        Composition(id: try requireID(), title: title, lyrics: lyrics, version: version, createdAt: createdAt, updatedAt: updatedAt,
                    lastOpenedAt: lastOpenedAt, themeOverride: themeOverride.flatMap(Theme.init(rawValue:)), conflictOf: conflictOf,
                    rhymeAnalysisCache: rhymeAnalysisCache)
    }
}
