import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The jobs table.
public protocol JobRepository: Sendable {
    func enqueue(_ job: JobModel) async throws
    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> JobModel?
    /// A person's latest jobs, newest first.
    func recent(ownedBy user: AuthenticatedUser, limit: Int) async throws -> [JobModel]
    /// Takes the oldest job that is queued, or running with its lease run out, for a worker until
    /// `leaseUntil`; nil when there is none. Two workers (on one server or several sharing
    /// PostgreSQL) never take the same job.
    func claim(now: Date, leaseUntil: Date, attemptsBelow: Int) async throws -> JobModel?
    /// Progress, and a longer lease, from the worker that holds the job.
    func report(_ id: UUID, progress: Double, message: String?, leaseUntil: Date) async throws
    func finish(_ id: UUID, status: JobStatus, message: String?, result: String?) async throws
}

struct FluentJobRepository: JobRepository {
    let database: any Database

    func enqueue(_ job: JobModel) async throws {
        try await job.create(on: database)
    }

    func find(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> JobModel? {
        try await JobModel.find(id, ownedBy: user, on: database)
    }

    func recent(ownedBy user: AuthenticatedUser, limit: Int) async throws -> [JobModel] {
        try await JobModel.query(ownedBy: user, on: database).sort(\.$createdAt, .descending).limit(limit).all()
    }

    func claim(now: Date, leaseUntil: Date, attemptsBelow: Int) async throws -> JobModel? {
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
        return try await JobModel.find(id, on: database)
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
