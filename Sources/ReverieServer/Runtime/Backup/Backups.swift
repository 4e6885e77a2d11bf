import FluentSQL
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI

/// The backups the owner makes from Settings, kept as zips in `<data>/backups/` (outside what a
/// backup copies): `<id>.zip`, and beside it `<id>.json` with what the list shows. A zip is
/// written under a dot name and renamed when whole, so the list never offers half of one.
struct Backups: Sendable {
    let directory: URL

    struct Summary: Codable, Sendable {
        var createdAt: Date
        var files: Int
        var database: String
    }

    /// The backups, newest first.
    func list() -> [BackupInfo] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".json"), let id = UUID(uuidString: String(name.dropLast(5))) else { return nil }
            return info(id)
        }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    /// Backup `id` as the list shows it; nil unless both its zip and its summary are there.
    func info(_ id: UUID) -> BackupInfo? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? Data(contentsOf: summary(id)), let summary = try? decoder.decode(Summary.self, from: data),
              let size = try? FileManager.default.attributesOfItem(atPath: zip(id).path)[.size] as? Int else { return nil }
        let key = id.uuidString.lowercased()
        return BackupInfo(id: key, createdAt: summary.createdAt, bytes: size, files: summary.files, database: summary.database,
                          downloadURL: "/api/backups/\(key)")
    }

    func zip(_ id: UUID) -> URL { directory.appendingPathComponent("\(id.uuidString.lowercased()).zip") }
    func summary(_ id: UUID) -> URL { directory.appendingPathComponent("\(id.uuidString.lowercased()).json") }

    /// Makes backup `id`: the zip under a dot name (what a stopped attempt left is cleared
    /// first), renamed when whole, then its summary.
    func make(_ id: UUID, config: ServerConfig, database: any SQLDatabase, now: Date, progress: @escaping Backup.Progress) async throws -> Backup.Manifest {
        let files = FileManager.default
        try files.createDirectory(at: directory, withIntermediateDirectories: true)
        // What a stopped backup left (one at a time runs, so none of it is in use).
        for leftover in (try? files.contentsOfDirectory(atPath: directory.path)) ?? [] where leftover.hasPrefix(".") {
            try? files.removeItem(at: directory.appendingPathComponent(leftover))
        }
        let attempt = "\(id.uuidString.lowercased())-\(UUID().uuidString.lowercased())"
        let partial = directory.appendingPathComponent(".making-\(attempt).zip")
        let scratch = directory.appendingPathComponent(".scratch-\(attempt)")
        let manifest = try await Backup.makeZip(config: config, database: database, to: partial, scratch: scratch, now: now, progress: progress)
        try files.moveItem(at: partial, to: zip(id))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(Summary(createdAt: manifest.createdAt, files: manifest.files.count, database: manifest.database))
            .write(to: summary(id), options: .atomic)
        return manifest
    }

    /// Removes backup `id`; false when there is none.
    func remove(_ id: UUID) -> Bool {
        guard info(id) != nil else { return false }
        try? FileManager.default.removeItem(at: summary(id))
        try? FileManager.default.removeItem(at: zip(id))
        return true
    }
}

/// A backup made from Settings, as a job the owner follows.
struct ServerBackup: Job {
    static let kind = JobKind.serverBackup

    struct Services: Sendable {
        let backups: Backups
        let config: ServerConfig
        let database: any SQLDatabase
        let now: @Sendable () -> Date
    }

    func run(_ context: JobContext, _ services: Services) async throws -> JobOutput {
        // The lease is renewed while one long step runs (the database's copy, a large file): the
        // last progress said again every 15 s, so no other worker takes the job meanwhile.
        let last = NIOLockedValueBox((0.0, "Starting…"))
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                guard !Task.isCancelled else { return }
                let (fraction, message) = last.withLockedValue { $0 }
                await context.report(fraction, message)
            }
        }
        defer { heartbeat.cancel() }
        let manifest = try await services.backups.make(context.id, config: services.config, database: services.database, now: services.now()) { fraction, message in
            last.withLockedValue { $0 = (fraction, message) }
            await context.report(fraction, message)
        }
        let bytes = manifest.files.reduce(0) { $0 + $1.bytes }
        return JobOutput(itemID: context.id, outcome: "\(manifest.files.count) files, \(ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file))")
    }
}

extension JobKind {
    /// A backup of the whole server.
    static let serverBackup = JobKind(rawValue: "server.backup")
}
