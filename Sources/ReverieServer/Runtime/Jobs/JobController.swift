import Foundation
import ReverieAPI
import Vapor

extension JobInfo: Content {}
extension JobList: Content {}

/// The person's jobs and their progress.
struct JobController: RouteCollection {
    let jobs: Store<any JobRepository>
    func boot(routes: any RoutesBuilder) throws {
        let jobs = routes.grouped("api", "jobs")
        jobs.get(use: list)
        jobs.get(":jobID", use: show)
    }

    /// `GET /api/jobs`: the latest 50, newest first.
    func list(req: Request) async throws -> JobList {
        JobList(jobs: try await jobs.on(req).recent(ownedBy: try req.user, limit: 50).map(Self.info))
    }

    /// `GET /api/jobs/{id}`.
    func show(req: Request) async throws -> JobInfo {
        let id = try req.uuidParameter("jobID", naming: "job")
        guard let job = try await jobs.on(req).find(id, ownedBy: try req.user) else { throw APIError.notFound("job") }
        return Self.info(job)
    }

    static func info(_ job: JobRecord) -> JobInfo {
        let result = JobOutput.decode(job.result)
        return JobInfo(id: job.id.uuidString.lowercased(), kind: job.kind, title: job.title, status: job.status.rawValue,
                       progress: job.progress, message: job.message, itemID: result?.itemID, createdAt: job.createdAt)
    }
}
