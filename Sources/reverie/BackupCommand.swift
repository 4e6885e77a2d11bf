import ArgumentParser
import Backups
import FluentSQL
import Foundation
import ReverieServer

/// `reverie backup PATH` and `reverie restore PATH`: a copy of the server a person can restore
/// (`Backup`), made while the server runs.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database, media, renders and the local authority into a new folder, while the server runs.",
        discussion: "The database is copied consistently (SQLite's VACUUM INTO, or pg_dump for DATABASE_URL on PostgreSQL); manifest.json lists every file with its SHA-256. Caches that are made again on demand are left out. Restore with `reverie restore PATH --data-dir NEW`.")

    @Argument(help: "A folder that does not exist yet (or is empty).")
    var path: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
        let destination = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try await ServerRunner.withApplication(config, logLevel: .warning) { app in
            guard let sql = app.db as? any SQLDatabase else { throw CommandFailure(BackupError.tool("backup", "the database does not speak SQL")) }
            do {
                let manifest = try await Backup.make(config: config, database: sql, into: destination)
                let bytes = manifest.files.reduce(0) { $0 + $1.bytes }
                print("Backed up \(manifest.files.count) files (\(ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file))) to \(destination.path)")
            } catch {
                throw CommandFailure(error, about: destination.path)
            }
        }
    }
}

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into an empty data folder, checking every file's SHA-256 first.",
        discussion: "A damaged backup is refused with the file named, and nothing is written. A PostgreSQL backup goes into the empty database given with --database-url (or DATABASE_URL). Then start the server with the same --data-dir.")

    @Argument(help: "The backup: its folder (made by `reverie backup`), or the zip downloaded from Settings.")
    var path: String

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let data = ServerConfig.dataDirectory(flag: storage.dataDirectory, environment: environment)
        let backup = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        do {
            let manifest = try await Backup.restore(from: backup, into: URL(fileURLWithPath: data, isDirectory: true),
                                                    databaseURL: storage.databaseURL ?? environment["DATABASE_URL"])
            print("Restored \(manifest.files.count) files from the backup of \(ISO8601DateFormatter().string(from: manifest.createdAt)) into \(data)")
        } catch {
            throw CommandFailure(error, about: backup.path)
        }
    }
}
