import Archives
import Crypto
import Foundation
import ZIPFoundation

/// What a backup lists: every file with its size and SHA-256. Written last, as `manifest.json`;
/// a restore checks all of them before it copies anything.
public struct BackupManifest: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        /// Relative to the backup (and to the data directory it restores into).
        public var path: String
        public var bytes: Int
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    public var format = 1
    public var createdAt: Date
    /// `sqlite` (`reverie.sqlite`) or `postgres` (`reverie.pgdump`, pg_dump's custom format).
    public var database: String
    public var files: [Entry]

    public init(createdAt: Date, database: String, files: [Entry]) {
        self.createdAt = createdAt
        self.database = database
        self.files = files
    }
}

/// A backup's files, as a folder or as one zip, and the checks a restore makes on them: the
/// database side (copying it, restoring it) is the server's (`ReverieServer.Backup`).
public enum BackupArchive {
    public static let manifestName = "manifest.json"

    /// The manifest as written: sorted keys, dates to the second.
    public static func encode(_ manifest: BackupManifest) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(manifest)
    }

    /// Checks every file of the backup at `backup` against its manifest: the manifest, then each
    /// file's size and SHA-256. Throws `BackupError.damaged` naming the first file that differs.
    @discardableResult
    public static func verify(_ backup: URL) throws -> BackupManifest {
        let manifestFile = backup.appendingPathComponent(manifestName)
        guard let bytes = try? Data(contentsOf: manifestFile) else { throw BackupError.damaged(manifestName, "it is missing or unreadable") }
        let manifest = try decodeManifest(bytes)
        try checkListing(manifest)
        for listed in manifest.files {
            let file = backup.appendingPathComponent(listed.path)
            // No part of its path a link: a link would be restored as one, pointing wherever it
            // points, outside the data folder too.
            var walked = backup
            for part in listed.path.split(separator: "/") {
                walked.appendPathComponent(String(part))
                if (try? FileManager.default.attributesOfItem(atPath: walked.path)[.type] as? FileAttributeType) == .typeSymbolicLink {
                    throw BackupError.damaged(listed.path, "it is a link (\(walked.lastPathComponent)), not a file in the backup")
                }
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else { throw BackupError.damaged(listed.path, "it is missing") }
            guard !isFolder.boolValue else { throw BackupError.damaged(listed.path, "it is a folder, not a file") }
            guard (try? FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType) == .typeRegular else {
                throw BackupError.damaged(listed.path, "it is not a regular file (a device or a pipe)")
            }
            guard let found = try? entry(file, relative: listed.path) else { throw BackupError.damaged(listed.path, "it cannot be read") }
            guard found.bytes == listed.bytes else { throw BackupError.damaged(listed.path, "it has \(found.bytes) bytes, not \(listed.bytes)") }
            guard found.sha256 == listed.sha256 else { throw BackupError.damaged(listed.path, "its contents changed (SHA-256 differs)") }
        }
        return manifest
    }

    /// Unpacks the backup zip `zip` into the new folder `folder`: its manifest, then each file the
    /// manifest lists, refusing a path that leads out and a file larger than the manifest says
    /// (so a zip bomb stops at the sizes it declares). `verify` then checks every hash.
    public static func unpack(_ zip: URL, into folder: URL) throws {
        let name = zip.lastPathComponent
        /// The zip, opened to read at most `bytes` in all (a backup's database compresses
        /// without bound, so the ratio is not capped: the manifest's sizes are).
        func open(reading bytes: Int) throws -> SafeArchive {
            do {
                return try SafeArchive(url: zip, limits: .init(maxEntries: 10_000_000, maxRatio: .max, maxBytes: bytes))
            } catch let ArchiveError.unsafePath(path) {
                throw BackupError.damaged(path, "its path leads out of the backup")
            } catch ArchiveError.tooManyEntries {
                throw BackupError.damaged(name, "it holds more entries than any backup")
            } catch {
                throw BackupError.damaged(name, "it is not a zip file")
            }
        }
        var archive = try open(reading: 64 << 20)
        guard let manifestEntry = archive.entry(manifestName), manifestEntry.type == .file else {
            throw BackupError.damaged(manifestName, "it is missing from \(name)")
        }
        let manifestBytes: Data
        do {
            manifestBytes = try archive.data(manifestEntry)
        } catch {
            throw BackupError.damaged(manifestName, "it cannot be read from \(name)")
        }
        let manifest = try decodeManifest(manifestBytes)
        try checkListing(manifest)
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        try manifestBytes.write(to: folder.appendingPathComponent(manifestName))
        archive = try open(reading: manifest.files.reduce(0) { $0.addingReportingOverflow($1.bytes).overflow ? .max : $0 + $1.bytes })
        for listed in manifest.files {
            guard let entry = archive.entry(listed.path), entry.type == .file else { throw BackupError.damaged(listed.path, "it is missing") }
            let target = folder.appendingPathComponent(listed.path)
            try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            files.createFile(atPath: target.path, contents: nil)
            let output = try FileHandle(forWritingTo: target)
            defer { try? output.close() }
            var written = 0
            do {
                try archive.extract(entry) { chunk in
                    written += chunk.count
                    guard written <= listed.bytes else { throw BackupError.damaged(listed.path, "it holds more than the \(listed.bytes) bytes listed") }
                    try output.write(contentsOf: chunk)
                }
            } catch let error as BackupError {
                throw error
            } catch ArchiveError.tooLarge {
                throw BackupError.damaged(listed.path, "it holds more than the \(listed.bytes) bytes listed")
            } catch {
                throw BackupError.damaged(listed.path, "it cannot be read from \(name)")
            }
        }
    }

    static func decodeManifest(_ bytes: Data) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let manifest = try? decoder.decode(BackupManifest.self, from: bytes), manifest.format == 1,
              ["sqlite", "postgres"].contains(manifest.database) else {
            throw BackupError.damaged(manifestName, "it is not a Reverie backup's manifest")
        }
        return manifest
    }

    /// A listing a restore can follow: each path inside the backup, once, with a size, and none
    /// inside another listed file (`a` and `a/b`) or the manifest.
    static func checkListing(_ manifest: BackupManifest) throws {
        var seen: Set<String> = [manifestName]
        for listed in manifest.files {
            guard isSafe(listed.path) else { throw BackupError.damaged(listed.path, "its path leads out of the backup") }
            guard listed.bytes >= 0 else { throw BackupError.damaged(listed.path, "its size is negative") }
            guard seen.insert(listed.path).inserted else { throw BackupError.damaged(listed.path, "it is listed twice") }
        }
        for listed in manifest.files {
            let parts = listed.path.split(separator: "/")
            for depth in parts.indices.dropLast() where seen.contains(parts[...depth].joined(separator: "/")) {
                throw BackupError.damaged(listed.path, "it is listed inside the file \(parts[...depth].joined(separator: "/"))")
            }
        }
    }

    // MARK: - Inside

    /// Where a backup's files go: a folder, or a zip.
    public protocol Writer {
        /// Where the database's copy is to be written, before `placed` takes it in.
        func place(for name: String) -> URL
        func placed(_ name: String) throws -> BackupManifest.Entry
        /// Adds `source` as `relative`, hashing it; nil when `source` is gone.
        func add(_ source: URL, as relative: String) throws -> BackupManifest.Entry?
        func finish(manifest: Data, as name: String) throws
    }

    public struct FolderWriter: Writer {
        public let folder: URL

        public init(folder: URL) { self.folder = folder }

        public func place(for name: String) -> URL { folder.appendingPathComponent(name) }
        public func placed(_ name: String) throws -> BackupManifest.Entry { try entry(place(for: name), relative: name) }

        public func add(_ source: URL, as relative: String) throws -> BackupManifest.Entry? {
            let target = folder.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            return try copy(source, to: target, relative: relative)
        }

        public func finish(manifest: Data, as name: String) throws {
            try manifest.write(to: folder.appendingPathComponent(name), options: .atomic)
        }
    }

    /// Writes a zip as it goes: each file read once, hashed and stored (audio does not shrink, so
    /// only the database and the manifest are compressed).
    public final class ZipWriter: Writer {
        let archive: Archive
        let scratch: URL

        public init(file: URL, scratch: URL) throws {
            archive = try Archive(url: file, accessMode: .create)
            self.scratch = scratch
        }

        public func place(for name: String) -> URL { scratch.appendingPathComponent(name) }

        public func placed(_ name: String) throws -> BackupManifest.Entry {
            defer { try? FileManager.default.removeItem(at: place(for: name)) }
            return try add(place(for: name), as: name, compression: .deflate) ?? { throw BackupError.damaged(name, "it was not written") }()
        }

        public func add(_ source: URL, as relative: String) throws -> BackupManifest.Entry? {
            try add(source, as: relative, compression: .none)
        }

        private func add(_ source: URL, as relative: String, compression: CompressionMethod) throws -> BackupManifest.Entry? {
            guard let input = try? FileHandle(forReadingFrom: source) else { return nil }
            defer { try? input.close() }
            // The size as it is now; the file is read to exactly that length.
            let size = try input.seekToEnd()
            try input.seek(toOffset: 0)
            var hash = SHA256()
            var hashed: Int64 = 0
            try archive.addEntry(with: relative, type: .file, uncompressedSize: Int64(size), compressionMethod: compression) { position, count in
                try input.seek(toOffset: UInt64(position))
                let chunk = try input.read(upToCount: count) ?? Data()
                guard chunk.count == count else { throw BackupError.damaged(relative, "it changed while it was copied") }
                if position == hashed {
                    hash.update(data: chunk)
                    hashed += Int64(count)
                }
                return chunk
            }
            guard hashed == Int64(size) else { throw BackupError.damaged(relative, "it was not read in order") }
            return BackupManifest.Entry(path: relative, bytes: Int(size), sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
        }

        public func finish(manifest: Data, as name: String) throws {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(manifest.count), compressionMethod: .deflate) { position, count in
                manifest.subdata(in: Int(position)..<Int(position) + count)
            }
        }
    }

    /// Every regular file under `folder`, as `prefix/…`, in a stable order; none when it is absent.
    public static func filesUnder(_ folder: URL, prefix: String) throws -> [String] {
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

    public static func isSafe(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    /// Copies `source` to `target`, hashing as it goes; nil when `source` is gone.
    static func copy(_ source: URL, to target: URL, relative: String) throws -> BackupManifest.Entry? {
        guard FileManager.default.fileExists(atPath: source.path) else { return nil }
        FileManager.default.createFile(atPath: target.path, contents: nil)
        let output = try FileHandle(forWritingTo: target)
        defer { try? output.close() }
        return try entry(source, relative: relative) { try output.write(contentsOf: $0) }
    }

    /// `file`'s size and SHA-256, each chunk also handed to `each` as it is read.
    static func entry(_ file: URL, relative: String, each: (Data) throws -> Void = { _ in }) throws -> BackupManifest.Entry {
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        var hash = SHA256()
        var bytes = 0
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash.update(data: chunk)
            try each(chunk)
            bytes += chunk.count
        }
        return BackupManifest.Entry(path: relative, bytes: bytes, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
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
