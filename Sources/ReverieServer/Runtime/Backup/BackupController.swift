import Foundation
import ReverieAPI
import Vapor

extension BackupInfo: Content {}
extension BackupList: Content {}

/// The owner's backups from Settings: make one (a job with progress), list, download, remove.
struct BackupController: RouteCollection {
    let jobRecords: Store<any JobRepository>
    let backups: Backups
    let jobs: JobQueue

    func boot(routes: any RoutesBuilder) throws {
        let group = routes.grouped("api", "backups")
        group.get(use: list)
        group.post(use: create)
        group.get(":backupID", use: download)
        group.delete(":backupID", use: remove)
    }

    /// `GET /api/backups`.
    func list(req: Request) async throws -> BackupList {
        try req.owner("makes and downloads backups")
        return BackupList(backups: backups.list(), making: try await making(req).map(JobController.info))
    }

    /// `POST /api/backups`: 202 with the job; 409 while one is being made.
    func create(req: Request) async throws -> Response {
        let owner = try req.owner("makes and downloads backups")
        if try await making(req) != nil {
            throw APIError(.conflict, code: "backup_running", "A backup is being made already; it is listed in Settings with its progress.")
        }
        let job = try await jobs.enqueue(ServerBackup(), title: "Backup", ownerID: owner.id)
        return try await JobController.info(job).encodeResponse(status: .accepted, for: req)
    }

    /// `GET /api/backups/{id}`: the zip, to save.
    func download(req: Request) async throws -> Response {
        try req.owner("makes and downloads backups")
        let id = try req.uuidParameter("backupID", naming: "backup")
        guard let info = backups.info(id) else { throw APIError.notFound("backup") }
        let response = try await req.fileio.asyncStreamFile(at: backups.zip(id).path, mediaType: .zip)
        let stamp = DateFormatter()
        stamp.locale = Locale(identifier: "en_US_POSIX")
        stamp.timeZone = TimeZone(identifier: "UTC")
        stamp.dateFormat = "yyyy-MM-dd-HHmm"
        response.markAsDownload(named: "reverie-backup-\(stamp.string(from: info.createdAt)).zip")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// `DELETE /api/backups/{id}`.
    func remove(req: Request) async throws -> HTTPStatus {
        try req.owner("makes and downloads backups")
        let id = try req.uuidParameter("backupID", naming: "backup")
        guard backups.remove(id) else { throw APIError.notFound("backup") }
        return .noContent
    }

    /// The backup being made, looked for among all jobs (feed refreshes come and go by the dozen).
    private func making(_ req: Request) async throws -> JobRecord? {
        try await jobRecords.on(req).active(.serverBackup)
    }

}
