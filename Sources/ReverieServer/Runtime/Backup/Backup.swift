import AudioRender
import Crypto
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
    public struct Manifest: Codable, Sendable, Equatable {
        public struct Entry: Codable, Sendable, Equatable {
            /// Relative to the backup (and to the data directory it restores into).
            public var path: String
            public var bytes: Int
            public var sha256: String
        }

        public var format = 1
        public var createdAt: Date
        /// `sqlite` (`reverie.sqlite`) or `postgres` (`reverie.pgdump`, pg_dump's custom format).
        public var database: String
        public var files: [Entry]
    }

    /// The folders under the data directory a backup keeps.
    public static let kept = ["media", "cache/speech", "tls"]
    static let manifestName = "manifest.json"
    static let sqliteName = "reverie.sqlite"
    static let postgresName = "reverie.pgdump"

    /// Makes a backup of the server `config` describes, reading its database through `database`,
    /// into `destination`, which must not exist yet or be empty. Returns its manifest.
    public static func make(config: ServerConfig, database: any SQLDatabase, into destination: URL,
                            runner: CommandRunner = .live, now: Date = Date()) async throws -> Manifest {
        let files = FileManager.default
        if files.fileExists(atPath: destination.path) {
            guard (try files.contentsOfDirectory(atPath: destination.path)).isEmpty else {
                throw BackupError.notEmpty(destination.path)
            }
        }
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        var entries: [Manifest.Entry] = []
        // The database first: a file added after it is only an extra, never a row without its file.
        let kind: String
        switch config.database {
        case .sqlite:
            kind = "sqlite"
            let copy = destination.appendingPathComponent(sqliteName)
            try await database.raw("VACUUM INTO \(bind: copy.path)").run()
        case let .postgres(url, searchPath):
            kind = "postgres"
            let copy = destination.appendingPathComponent(postgresName)
            var arguments = ["--format=custom", "--no-owner", "--file", copy.path]
            for schema in searchPath ?? [] { arguments += ["--schema", schema] }
            let result = try await runner.run(try postgresTool("pg_dump"), arguments + [url], nil)
            guard result.status == 0 else { throw BackupError.tool("pg_dump", String(decoding: result.errors, as: UTF8.self)) }
        }
        entries.append(try entry(destination.appendingPathComponent(kind == "sqlite" ? sqliteName : postgresName), relative: kind == "sqlite" ? sqliteName : postgresName))
        // Then the files, each hashed as it is copied.
        let data = URL(fileURLWithPath: config.dataDirectory, isDirectory: true)
        for folder in kept {
            for relative in try filesUnder(data.appendingPathComponent(folder), prefix: folder) {
                let source = data.appendingPathComponent(relative)
                let target = destination.appendingPathComponent(relative)
                try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                // A file removed since the listing (a person's upload deleted meanwhile) is left out.
                guard let copied = try copy(source, to: target, relative: relative) else { continue }
                entries.append(copied)
            }
        }
        // To the second, as the manifest writes it.
        let manifest = Manifest(createdAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), database: kind, files: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(manifest).write(to: destination.appendingPathComponent(manifestName), options: .atomic)
        return manifest
    }

    /// Checks every file of the backup at `backup` against its manifest: the manifest, then each
    /// file's size and SHA-256. Throws `BackupError.damaged` naming the first file that differs.
    @discardableResult
    public static func verify(_ backup: URL) throws -> Manifest {
        let manifestFile = backup.appendingPathComponent(manifestName)
        guard let bytes = try? Data(contentsOf: manifestFile) else { throw BackupError.damaged(manifestName, "it is missing or unreadable") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let manifest = try? decoder.decode(Manifest.self, from: bytes), manifest.format == 1,
              ["sqlite", "postgres"].contains(manifest.database) else {
            throw BackupError.damaged(manifestName, "it is not a Reverie backup's manifest")
        }
        for listed in manifest.files {
            guard isSafe(listed.path) else { throw BackupError.damaged(listed.path, "its path leads out of the backup") }
            let file = backup.appendingPathComponent(listed.path)
            guard FileManager.default.fileExists(atPath: file.path) else { throw BackupError.damaged(listed.path, "it is missing") }
            let found = try entry(file, relative: listed.path)
            guard found.bytes == listed.bytes else { throw BackupError.damaged(listed.path, "it has \(found.bytes) bytes, not \(listed.bytes)") }
            guard found.sha256 == listed.sha256 else { throw BackupError.damaged(listed.path, "its contents changed (SHA-256 differs)") }
        }
        return manifest
    }

    /// Restores the backup at `backup` into `dataDirectory`, which must not exist yet or be empty:
    /// every file is checked first (`verify`), then copied. A PostgreSQL backup is restored into
    /// the empty database `databaseURL` with pg_restore.
    @discardableResult
    public static func restore(from backup: URL, into dataDirectory: URL, databaseURL: String? = nil,
                               runner: CommandRunner = .live) async throws -> Manifest {
        let manifest = try verify(backup)
        let files = FileManager.default
        if files.fileExists(atPath: dataDirectory.path) {
            guard (try files.contentsOfDirectory(atPath: dataDirectory.path)).isEmpty else { throw BackupError.notEmpty(dataDirectory.path) }
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

    // MARK: - Inside

    /// Every regular file under `folder`, as `prefix/…`, in a stable order; none when it is absent.
    static func filesUnder(_ folder: URL, prefix: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey]) else { return [] }
        var found: [String] = []
        let base = folder.standardizedFileURL.path
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            // Scratch files (a dot in front: an upload arriving, a render being written) are not kept.
            guard values?.isRegularFile == true, values?.isSymbolicLink != true, !url.lastPathComponent.hasPrefix(".") else { continue }
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            found.append(prefix + "/" + path.dropFirst(base.count + 1))
        }
        return found.sorted()
    }

    static func isSafe(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    /// Copies `source` to `target`, hashing as it goes; nil when `source` is gone.
    static func copy(_ source: URL, to target: URL, relative: String) throws -> Manifest.Entry? {
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        FileManager.default.createFile(atPath: target.path, contents: nil)
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        return try entry(source, relative: relative) { try output.write(contentsOf: $0) }
    }

    /// `file`'s size and SHA-256, each chunk also handed to `each` as it is read.
    static func entry(_ file: URL, relative: String, each: (Data) throws -> Void = { _ in }) throws -> Manifest.Entry {
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        var hash = SHA256()
        var bytes = 0
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
            try each(chunk)
            bytes += chunk.count
        }
        return Manifest.Entry(path: relative, bytes: bytes, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
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

/// What can stop a backup or a restore, each saying what to do.
public enum BackupError: Error, Equatable, CustomStringConvertible {
    case notEmpty(String)
    case damaged(String, String)
    case needsDatabase
    case tool(String, String)

    public var description: String {
        switch self {
        case let .notEmpty(path): "\(path) is not empty: choose a new folder (a backup and a restore never write over files)."
        case let .damaged(file, reason): "The backup is damaged: \(file): \(reason). Nothing was restored; use another backup."
        case .needsDatabase: "This backup holds a PostgreSQL database: give the empty database to restore it into with --database-url."
        case let .tool(name, reason): "\(name) failed: \(reason.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
