import AudioRender
import Backups
import FluentSQL
import Foundation

/// A copy of a server a person can restore (issue 33): the database, taken consistently while the
/// server runs (SQLite's `VACUUM INTO`, a snapshot inside one read transaction; `pg_dump` on
/// PostgreSQL), and the files that cannot be made again: `media/` (uploads, downloads, Wind
/// Down's audio), `cache/speech/` (renders people asked for, articles' spoken audio) and `tls/`
/// (the local authority, so phones that trust it go on trusting the restored server). Caches
/// that are made again on demand are left out. `manifest.json`, written last, lists every file
/// with its size and SHA-256; a restore checks all of them before it copies anything.
///
/// The search index keeps FTS5's secure-delete format, so a removed person's words leave the file
/// at once; Debian 12's own `sqlite3` (3.40) cannot read that index, so a backup (or the server
/// itself) is the supported way to copy the database.
public enum Backup {
    public typealias Manifest = BackupManifest

    /// The folders under the data directory a backup keeps (`keys`: the key app passwords are
    /// sealed with, without which a restored server could not check Subsonic's sign-ins).
    public static let kept = ["media", "cache/speech", "tls", "keys"]
    static let sqliteName = "reverie.sqlite"
    static let postgresName = "reverie.pgdump"

    /// How far a backup has got: 0…1 by bytes copied, and what it is copying.
    public typealias Progress = @Sendable (_ fraction: Double, _ message: String) async -> Void

    /// Makes a backup of the server `config` describes, reading its database through `database`,
    /// into `destination`, which must not exist yet or be empty. Returns its manifest.
    public static func make(config: ServerConfig, database: any SQLDatabase, into destination: URL,
                            runner: CommandRunner = .live, now: Date = Date(), progress: Progress = { _, _ in }) async throws -> Manifest {
        let files = FileManager.default
        if files.fileExists(atPath: destination.path) {
            guard (try files.contentsOfDirectory(atPath: destination.path)).isEmpty else {
                throw BackupError.notEmpty(destination.path)
            }
        }
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        return try await make(config: config, database: database, writer: BackupArchive.FolderWriter(folder: destination), runner: runner, now: now, progress: progress)
    }

    /// Makes a backup as one zip file at `zip` (which must not exist yet): what Settings offers as
    /// a download. The database's copy waits in `scratch` while it is added. `restore` reads the
    /// zip as it reads a folder.
    public static func makeZip(config: ServerConfig, database: any SQLDatabase, to zip: URL, scratch: URL,
                               runner: CommandRunner = .live, now: Date = Date(), progress: Progress = { _, _ in }) async throws -> Manifest {
        guard !FileManager.default.fileExists(atPath: zip.path) else { throw BackupError.notEmpty(zip.path) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            return try await make(config: config, database: database, writer: try BackupArchive.ZipWriter(file: zip, scratch: scratch), runner: runner, now: now, progress: progress)
        } catch {
            try? FileManager.default.removeItem(at: zip)
            throw error
        }
    }

    private static func make(config: ServerConfig, database: any SQLDatabase, writer: some BackupArchive.Writer,
                             runner: CommandRunner, now: Date, progress: Progress) async throws -> Manifest {
        await progress(0, "Copying the database…")
        var entries: [Manifest.Entry] = []
        // The database first: a file added after it is only an extra, never a row without its file.
        let kind: String
        let name: String
        switch config.database {
        case .sqlite:
            (kind, name) = ("sqlite", sqliteName)
            try await database.raw("VACUUM INTO \(bind: writer.place(for: name).path)").run()
        case let .postgres(url, searchPath):
            (kind, name) = ("postgres", postgresName)
            var arguments = ["--format=custom", "--no-owner", "--file", writer.place(for: name).path]
            for schema in searchPath ?? [] { arguments += ["--schema", schema] }
            let result = try await runner.run(try postgresTool("pg_dump"), arguments + [url], nil)
            guard result.status == 0 else { throw BackupError.tool("pg_dump", String(decoding: result.errors, as: UTF8.self)) }
        }
        entries.append(try writer.placed(name))
        // Then the files, each hashed as it is copied; the fraction goes by bytes.
        let data = URL(fileURLWithPath: config.dataDirectory, isDirectory: true)
        let listed = try kept.flatMap { try BackupArchive.filesUnder(data.appendingPathComponent($0), prefix: $0) }
        let sizes = listed.map { (try? FileManager.default.attributesOfItem(atPath: data.appendingPathComponent($0).path)[.size] as? Int) ?? 0 }
        let total = max(1, sizes.reduce(entries[0].bytes, +))
        var done = entries[0].bytes
        for (relative, size) in zip(listed, sizes) {
            try Task.checkCancellation()
            await progress(Double(done) / Double(total), "Copying \(relative.split(separator: "/").prefix(2).joined(separator: "/"))…")
            // A file removed since the listing (a person's upload deleted meanwhile) is left out.
            if let copied = try writer.add(data.appendingPathComponent(relative), as: relative) { entries.append(copied) }
            done += size
        }
        // To the second, as the manifest writes it.
        let manifest = Manifest(createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), database: kind, files: entries)
        try writer.finish(manifest: BackupArchive.encode(manifest), as: BackupArchive.manifestName)
        await progress(1, "Done")
        return manifest
    }

    /// Restores the backup at `backup` into `dataDirectory`, which must not exist yet or be empty:
    /// every file is checked first (`verify`), then copied. A PostgreSQL backup is restored into
    /// the empty database `databaseURL` with pg_restore.
    /// A zip (a backup downloaded from Settings) is unpacked beside `dataDirectory` first: only the
    /// files its manifest lists, none larger than listed, then checked like a folder.
    @discardableResult
    public static func restore(from backup: URL, into dataDirectory: URL, databaseURL: String? = nil,
                               runner: CommandRunner = .live) async throws -> Manifest {
        let files = FileManager.default
        if files.fileExists(atPath: dataDirectory.path) {
            guard (try files.contentsOfDirectory(atPath: dataDirectory.path)).isEmpty else { throw BackupError.notEmpty(dataDirectory.path) }
        }
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: backup.path, isDirectory: &isFolder), !isFolder.boolValue {
            let unpacked = dataDirectory.deletingLastPathComponent().appendingPathComponent(".\(dataDirectory.lastPathComponent)-unpacking-\(UUID().uuidString)")
            defer { try? files.removeItem(at: unpacked) }
            try BackupArchive.unpack(backup, into: unpacked)
            return try await restore(from: unpacked, into: dataDirectory, databaseURL: databaseURL, runner: runner)
        }
        let manifest = try BackupArchive.verify(backup)
        // A backup is its database first: one that lists none would restore a server with nothing.
        let databaseFile = manifest.database == "postgres" ? postgresName : sqliteName
        guard manifest.files.contains(where: { $0.path == databaseFile }) else {
            throw BackupError.damaged(databaseFile, "the manifest lists no database; it is not a whole backup")
        }
        if manifest.database == "postgres" {
            guard let databaseURL, databaseURL.hasPrefix("postgres") else { throw BackupError.needsDatabase }
            let dump = backup.appendingPathComponent(postgresName)
            let result = try await runner.run(try postgresTool("pg_restore"), ["--no-owner", "--exit-on-error", "--dbname", databaseURL, dump.path], nil)
            guard result.status == 0 else { throw BackupError.tool("pg_restore", String(decoding: result.errors, as: UTF8.self)) }
        }
        try files.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        for listed in manifest.files where listed.path != postgresName {
            let target = dataDirectory.appendingPathComponent(listed.path)
            try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: backup.appendingPathComponent(listed.path), to: target)
        }
        // The authority's key stays readable by this user alone, as it was made.
        for key in ["tls/ca.key", "tls/server.key"] where files.fileExists(atPath: dataDirectory.appendingPathComponent(key).path) {
            try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: dataDirectory.appendingPathComponent(key).path)
        }
        return manifest
    }

    /// PostgreSQL's own tool: on the PATH, or in Debian's versioned folder.
    static func postgresTool(_ name: String) throws -> String {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin/\(name)" }
        guard let found = (paths + debian).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BackupError.tool(name, "it is not installed (apt-get install postgresql-client)")
        }
        return found
    }
}

