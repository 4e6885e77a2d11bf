import Fluent
import SQLKit
import Vapor

/// Accounts as stored, answered as `UserRecord` values.
public protocol UserRepository: Sendable {
    /// How many accounts exist.
    func count() async throws -> Int
    /// Adds an account and answers it as written; throws 409 `username_taken` when the name is in use.
    func create(username: String, passwordHash: String, isOwner: Bool) async throws -> UserRecord
    func find(username: String) async throws -> UserRecord?
    func find(id: UUID) async throws -> UserRecord?
    /// Every account, oldest first.
    func all() async throws -> [UserRecord]
    /// The account that owns the server (the first one made).
    func owner() async throws -> UserRecord?
    /// Removes an account with everything it owns.
    func delete(id: UUID) async throws
    /// Stores a new password hash and revokes every session and personal token of the account
    /// except `keptToken`, in one transaction. `false` when there is no such account.
    func replacePassword(of id: UUID, hash: String, mustChange: Bool, keeping keptToken: UUID?) async throws -> Bool
    /// Sets the plan (`plan`) and the development bypass switch (`bypass`) where given; the
    /// account as it is now, `nil` when there is no such account.
    func setPlan(of id: UUID, plan: String?, bypass: Bool?) async throws -> UserRecord?
}

/// `UserRepository` on Fluent (SQLite or PostgreSQL).
struct FluentUserRepository: UserRepository {
    let database: any Database
    /// Forgotten after every write here, so a removed account or a changed password signs nothing in.
    var signIns: Recent<String, SignIn>?

    func count() async throws -> Int {
        try await UserModel.query(on: database).count()
    }

    func create(username: String, passwordHash: String, isOwner: Bool) async throws -> UserRecord {
        let user = UserModel(username: username, passwordHash: passwordHash, isOwner: isOwner)
        do {
            try await user.create(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AccountError.usernameTaken(username)
        }
        return try user.record()
    }

    func find(username: String) async throws -> UserRecord? {
        try await UserModel.query(on: database).filter(\.$username == username).first()?.record()
    }

    func find(id: UUID) async throws -> UserRecord? {
        try await UserModel.find(id, on: database)?.record()
    }

    func owner() async throws -> UserRecord? {
        try await UserModel.query(on: database).filter(\.$isOwner == true).first()?.record()
    }

    func all() async throws -> [UserRecord] {
        try await UserModel.query(on: database).sort(\.$createdAt).sort(\.$username).all().map { try $0.record() }
    }

    func delete(id: UUID) async throws {
        // Every table that holds a person's rows (PersonalData.tables), children first, so the
        // delete works whether or not the database enforces cascades; the person's row last.
        // Removing a composition removes its search-index row too (a trigger on SQLite).
        try await database.transaction { database in
            guard let sql = database as? any SQLDatabase else {
                throw StoreError.notSQL
            }
            for table in PersonalData.tables {
                try await sql.raw("DELETE FROM \(ident: table) WHERE owner_id = \(bind: id)").run()
            }
            try await UserModel.query(on: database).filter(\.$id == id).delete()
        }
        signIns?.forgetAll()
        try await checkpointAfterRemoval()
    }

    /// On SQLite the pages the removal changed stay in the write-ahead log, old contents and all,
    /// until a checkpoint (some 1,000 pages of writes later): one now, which copies them into the
    /// file (where `secure_delete` has zeroed what was freed) and truncates the log, so the removed
    /// person's words are in no file. A reader holding an old snapshot makes it busy for a
    /// moment: it is tried again a few times.
    private func checkpointAfterRemoval() async throws {
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite" else { return }
        for attempt in 0..<10 {
            let row = try await sql.raw("PRAGMA wal_checkpoint(TRUNCATE)").first()
            if (try? row?.decode(column: "busy", as: Int.self)) == 0 { return }
            try await Task.sleep(for: .milliseconds(20 << min(attempt, 4)))
        }
    }

    func setPlan(of id: UUID, plan: String?, bypass: Bool?) async throws -> UserRecord? {
        defer { signIns?.forgetAll() }
        guard let user = try await UserModel.find(id, on: database) else { return nil }
        if let plan { user.plan = plan }
        if let bypass { user.planBypass = bypass }
        try await user.save(on: database)
        return try user.record()
    }

    func replacePassword(of id: UUID, hash: String, mustChange: Bool, keeping keptToken: UUID?) async throws -> Bool {
        // The write comes first so the transaction takes SQLite's write lock at once (see
        // `prepareSQLiteConnections`).
        defer { signIns?.forgetAll() }
        return try await database.transaction { database in
            let sql = database as! any SQLDatabase
            let changed = try await sql.raw("""
                UPDATE \(ident: UserModel.schema) SET password_hash = \(bind: hash), must_change_password = \(bind: mustChange)
                WHERE id = \(bind: id) RETURNING id
                """).all()
            guard !changed.isEmpty else { return false }
            let tokens = AuthTokenModel.query(on: database).filter(\.$owner.$id == id)
            if let keptToken { tokens.filter(\.$id != keptToken) }
            try await tokens.delete()
            return true
        }
    }
}

extension UserModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> UserRecord {
        UserRecord(id: try requireID(), username: username, passwordHash: passwordHash, isOwner: isOwner,
                   mustChangePassword: mustChangePassword, plan: plan, planBypass: planBypass, createdAt: createdAt)
    }
}
