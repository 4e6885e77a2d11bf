import Fluent
import SQLKit
import Vapor

/// A person's compositions.
public protocol CompositionRepository: Sendable {
    func create(title: String, lyrics: String, themeOverride: String?, conflictOf: UUID?, ownedBy user: AuthenticatedUser, at date: Date) async throws -> CompositionModel
    /// The composition unless it is deleted (or someone else's).
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> CompositionModel?
    /// Newest edit first.
    func list(ownedBy user: AuthenticatedUser) async throws -> [CompositionModel]
    /// Compositions where every query word starts a word of the title or the lyrics, newest first.
    func search(_ words: [String], ownedBy user: AuthenticatedUser) async throws -> [CompositionModel]
    /// Saves an edit made from `version`; nil when the stored version is another (someone saved first).
    func update(_ id: UUID, title: String, lyrics: String, themeOverride: String?, fromVersion version: Int,
                ownedBy user: AuthenticatedUser, at date: Date) async throws -> CompositionModel?
    /// Keeps the rhyme analysis (JSON) of the lyrics of `version` — the seed's `rhymeAnalysisCache`;
    /// nothing happens when the song has moved on to another version.
    func setAnalysisCache(_ id: UUID, _ json: String, forVersion version: Int, ownedBy user: AuthenticatedUser) async throws
    func markOpened(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws
    /// Deletes (restorable); false when there was nothing to delete.
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser, at date: Date) async throws -> Bool
    /// Brings a deleted composition back; nil when there is none to restore.
    func restore(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> CompositionModel?
}

/// `CompositionRepository` on Fluent, with SQLite's FTS5 index or PostgreSQL's regular expressions.
struct FluentCompositionRepository: CompositionRepository {
    let database: any Database

    private var sql: (any SQLDatabase)? { database as? any SQLDatabase }
    private var usesFTS: Bool { sql?.dialect.name == "sqlite" }

    func create(title: String, lyrics: String, themeOverride: String?, conflictOf: UUID?, ownedBy user: AuthenticatedUser, at date: Date) async throws -> CompositionModel {
        let row = CompositionModel(ownerID: user.id, title: title, lyrics: lyrics, themeOverride: themeOverride, conflictOf: conflictOf, at: date)
        try await database.transaction { database in
            try await row.create(on: database)
            try await Self.index(row, on: database)
        }
        return row
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> CompositionModel? {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).filter(\.$deletedAt == nil).first()
    }

    func list(ownedBy user: AuthenticatedUser) async throws -> [CompositionModel] {
        try await CompositionModel.query(ownedBy: user, on: database).filter(\.$deletedAt == nil).sort(\.$updatedAt, .descending).all()
    }

    func search(_ words: [String], ownedBy user: AuthenticatedUser) async throws -> [CompositionModel] {
        guard let sql, !words.isEmpty else { return try await list(ownedBy: user) }
        var ids: [UUID]
        if usesFTS {
            // Each word as a prefix: "moon"* "rive"*; the words are letters and digits only.
            let match = words.map { "\"\($0)\"*" }.joined(separator: " ")
            ids = try await sql.raw("SELECT composition_id FROM compositions_fts WHERE compositions_fts MATCH \(bind: match) AND owner_id = \(bind: user.id.uuidString)")
                .all().compactMap { try? UUID(uuidString: $0.decode(column: "composition_id", as: String.self)) }
        } else {
            var query = sql.select().column("id").from(CompositionModel.schema).where("owner_id", .equal, user.id)
            for word in words {
                let pattern = "\\m" + word
                query = query.where(SQLGroupExpression(SQLBinaryExpression(
                    left: SQLBinaryExpression(left: SQLColumn("title"), op: SQLRaw("~*"), right: SQLBind(pattern)), op: SQLBinaryOperator.or,
                    right: SQLBinaryExpression(left: SQLColumn("lyrics"), op: SQLRaw("~*"), right: SQLBind(pattern)))))
            }
            ids = try await query.all().map { try $0.decode(column: "id", as: UUID.self) }
        }
        guard !ids.isEmpty else { return [] }
        return try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id ~~ ids).filter(\.$deletedAt == nil)
            .sort(\.$updatedAt, .descending).all()
    }

    func update(_ id: UUID, title: String, lyrics: String, themeOverride: String?, fromVersion version: Int,
                ownedBy user: AuthenticatedUser, at date: Date) async throws -> CompositionModel? {
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
            return row
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
        try await database.transaction { database in
            guard let row = try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).filter(\.$deletedAt == nil).first() else { return false }
            row.deletedAt = date
            try await row.update(on: database)
            try await Self.index(row, on: database)
            return true
        }
    }

    func restore(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> CompositionModel? {
        try await database.transaction { database in
            guard let row = try await CompositionModel.query(ownedBy: user, on: database).filter(\.$id == id).filter(\.$deletedAt != nil).first() else { return nil }
            row.deletedAt = nil
            try await row.update(on: database)
            try await Self.index(row, on: database)
            return row
        }
    }

    /// Keeps the SQLite search index in step with a row (a deleted row leaves the index).
    static func index(_ row: CompositionModel, on database: any Database) async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite", let id = row.id else { return }
        try await sql.raw("DELETE FROM compositions_fts WHERE composition_id = \(bind: id.uuidString)").run()
        guard row.deletedAt == nil else { return }
        try await sql.raw("""
            INSERT INTO compositions_fts (composition_id, owner_id, title, lyrics)
            VALUES (\(bind: id.uuidString), \(bind: row.$owner.id.uuidString), \(bind: row.title), \(bind: row.lyrics))
            """).run()
    }
}
