import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The jobs table, answered as `JobRecord` values.
public protocol JobRepository: Sendable {
    /// Writes a queued job (no attempts yet) and answers it as written; `payload` is the kind's
    /// `Job` value as JSON.
    func enqueue(ownerID: UUID, kind: JobKind, title: String, payload: String) async throws -> JobRecord
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> JobRecord?
    /// A person's latest jobs, newest first.
    func recent(ownedBy user: AuthenticatedUser, limit: Int) async throws -> [JobRecord]
    /// A job of `kind` that is queued or running, whoever it is for; nil when there is none.
    func active(_ kind: JobKind) async throws -> JobRecord?
    /// Takes the oldest job that is queued, or running with its lease run out, for a worker until
    /// `leaseUntil`; nil when there is none. Two workers (on one server or several sharing
    /// PostgreSQL) never take the same job.
    func claim(now: Date, leaseUntil: Date, attemptsBelow: Int) async throws -> JobRecord?
    /// Progress, and a longer lease, from the worker that holds the job.
    func report(_ id: UUID, progress: Double, message: String?, leaseUntil: Date) async throws
    func finish(_ id: UUID, status: JobStatus, message: String?, result: String?) async throws
}

struct FluentJobRepository: JobRepository {
    let database: any Database

    func enqueue(ownerID: UUID, kind: JobKind, title: String, payload: String) async throws -> JobRecord {
        let row = JobModel(ownerID: ownerID, kind: kind, title: title, payload: payload)
        try await row.create(on: database)
        return try row.record()
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> JobRecord? {
        try await JobModel.find(id, ownedBy: user, on: database)?.record()
    }

    func recent(ownedBy user: AuthenticatedUser, limit: Int) async throws -> [JobRecord] {
        try await JobModel.query(ownedBy: user, on: database).sort(\.$createdAt, .descending).limit(limit).all().map { try $0.record() }
    }

    func active(_ kind: JobKind) async throws -> JobRecord? {
        try await JobModel.query(on: database).filter(\.$kind == kind.rawValue).filter(\.$status ~~ [JobStatus.queued, .running])
            .sort(\.$createdAt, .descending).first()?.record()
    }

    func claim(now: Date, leaseUntil: Date, attemptsBelow: Int) async throws -> JobRecord? {
        guard let sql = database as? any SQLDatabase else { return nil }
        // One statement: pick and take. On PostgreSQL the pick skips rows another worker is
        // taking; the outer condition is checked again on the row, so a job is taken once.
        let skipLocked = sql.dialect.name == "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""
        let rows = try await sql.raw("""
            UPDATE jobs SET status = 'running', lease_until = \(bind: leaseUntil), attempts = attempts + 1, updated_at = \(bind: now)
            WHERE id = (SELECT id FROM jobs WHERE (status = 'queued' OR (status = 'running' AND lease_until < \(bind: now))) AND attempts < \(bind: attemptsBelow)
                        ORDER BY created_at LIMIT 1\(unsafeRaw: skipLocked))
              AND (status = 'queued' OR (status = 'running' AND lease_until < \(bind: now)))
            RETURNING id
            """).all()
        guard let row = rows.first, let id = try? row.decode(column: "id", as: UUID.self) else { return nil }
        return try await JobModel.find(id, on: database)?.record()
    }

    func report(_ id: UUID, progress: Double, message: String?, leaseUntil: Date) async throws {
        try await JobModel.query(on: database).filter(\.$id == id).filter(\.$status == .running)
            .set(\.$progress, to: max(0, min(1, progress))).set(\.$message, to: message).set(\.$leaseUntil, to: leaseUntil).update()
    }

    func finish(_ id: UUID, status: JobStatus, message: String?, result: String?) async throws {
        try await JobModel.query(on: database).filter(\.$id == id)
            .set(\.$status, to: status).set(\.$message, to: message).set(\.$result, to: result)
            .set(\.$progress, to: status == .done ? 1 : 0).set(\.$leaseUntil, to: nil).update()
    }
}

extension JobModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> JobRecord {
        JobRecord(id: try requireID(), ownerID: $owner.id, kind: kind, title: title, status: status, progress: progress,
                  message: message, payload: payload, result: result, attempts: attempts, leaseUntil: leaseUntil, createdAt: createdAt)
    }
}
