import FluentSQL
import Foundation
import Vapor

/// The owner's backups: made as a job with progress, listed, downloaded and removed.
struct BackupFeature: Feature {
    let routes: [any RouteCollection]
    let jobs: [JobRunner]

    init(jobRecords: Store<any JobRepository>, backups: Backups, database: any SQLDatabase, config: ServerConfig, queue: JobQueue,
         now: @escaping @Sendable () -> Date) {
        routes = [BackupController(jobRecords: jobRecords, backups: backups, jobs: queue)]
        jobs = [JobRunner(ServerBackup.self, .init(backups: backups, config: config, database: database, now: now))]
    }
}
