import Backups
import FluentSQL
import Foundation
import NIOConcurrencyHelpers
@testable import ReverieServer
import ReverieAPI
import Testing
import Vapor
import ZIPFoundation

@Suite("Backups a person can restore: made while writes run, every acknowledged write comes back, a damaged one is refused", .serialized)
struct BackupTests {
    @Test("a backup made while songs are being saved restores into an empty folder, and a server started on it has every song saved before it began")
    func backupWhileWriting() async throws {
        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-backup-\(UUID().uuidString)")
        let restored = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-restored-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: backup)
            try? FileManager.default.removeItem(at: restored)
        }
        var before: Set<UUID> = []
        var cookie = ""
        try await withTestApp(.sqlite) { client in
            cookie = try await client.setUpOwner()
            // A file of the person's, to come back byte for byte.
            let song = try await LibraryAPITests.audioFile("kept.mp3", seconds: 2, title: "Kept", frequency: 587)
            let item = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mpeg", auth: .cookie(cookie)).decode(LibraryUploadResult.self).item
            for n in 0..<20 { before.insert(try await Self.save("Before \(n)", client, cookie)) }
            // Writers go on while the backup is made; what they saved meanwhile may or may not be in it.
            let owner = cookie
            let stop = NIOLockedValueBox(false)
            let started = NIOLockedValueBox(0)
            async let written: Int = {
                var n = 0
                while !stop.withLockedValue({ $0 }) {
                    _ = try? await Self.save("During \(n)", client, owner)
                    n += 1
                    started.withLockedValue { $0 = n }
                }
                return n
            }()
            // The backup starts once the writer is saving, so the two overlap.
            while started.withLockedValue({ $0 }) == 0 { await Task.yield() }
            let sql = try #require(client.app.db as? any SQLDatabase)
            let manifest = try await Backup.make(config: client.app.services.config, database: sql, into: backup)
            stop.withLockedValue { $0 = true }
            #expect(await written > 0)
            #expect(manifest.database == "sqlite" && manifest.files.contains { $0.path.hasPrefix("media/library/") })
            #expect(try BackupArchive.verify(backup) == manifest)
            // Into a folder with something in it: refused, nothing written.
            try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: restored.appendingPathComponent("other"))
            await #expect(throws: BackupError.notEmpty(restored.path)) { try await Backup.restore(from: backup, into: restored) }
            try FileManager.default.removeItem(at: restored)
            try await Backup.restore(from: backup, into: restored)
            let copied = try Data(contentsOf: restored.appendingPathComponent(try #require(manifest.files.first { $0.path.hasPrefix("media/library/") }).path))
            #expect(copied == song)
            _ = item
        }
        // A server on the restored folder: the owner signs in as before, and every song saved
        // before the backup began is there.
        try await withTestApp(.sqlite, adjust: { config in
            config.dataDirectory = restored.path
            config.database = .sqlite(path: restored.appendingPathComponent("reverie.sqlite").path)
        }) { client in
            let login = try await client.send(.POST, "/api/auth/login", json: ["username": "ada", "password": "correct horse"])
            #expect(login.status == .ok, "\(login.text)")
            let session = try #require(login.sessionCookie)
            let songs = try await client.send(.GET, "/api/compositions", auth: .cookie(session)).decode([CompositionSummary].self)
            #expect(before.isSubset(of: Set(songs.map(\.id))), "\(before.subtracting(songs.map(\.id)).count) songs saved before the backup are missing")
            let library = try await client.send(.GET, "/api/library", auth: .cookie(session)).decode(LibraryList.self)
            #expect(library.items.count == 1)
            #expect(try await client.send(.GET, library.items[0].audioURL, auth: .cookie(session)).status == .ok)
        }
    }

    @Test("a damaged backup is refused with the file named, and nothing is restored")
    func damaged() async throws {
        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-backup-\(UUID().uuidString)")
        let restored = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-restored-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: backup)
            try? FileManager.default.removeItem(at: restored)
        }
        try await withTestApp(.sqlite) { client in
            _ = try await client.setUpOwner()
            // A media file beside the database.
            let media = client.app.services.config.mediaDirectory("winddown")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            try Data("sound".utf8).write(to: media.appendingPathComponent("kept.m4a"))
            let sql = try #require(client.app.db as? any SQLDatabase)
            _ = try await Backup.make(config: client.app.services.config, database: sql, into: backup)
        }
        // A listed file swapped for a link to one outside (with the same bytes, so its hash holds),
        // and a manifest that lists no database: refused, nothing restored (issue 50).
        let manifestFile = backup.appendingPathComponent("manifest.json")
        let original = try Data(contentsOf: manifestFile)
        let manifest = try JSONSerialization.jsonObject(with: original) as! [String: Any]
        let listed = manifest["files"] as! [[String: Any]]
        let other = try #require(listed.map { $0["path"] as! String }.first { $0 != "reverie.sqlite" }, "a file besides the database")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.moveItem(at: backup.appendingPathComponent(other), to: outside)
        try FileManager.default.createSymbolicLink(at: backup.appendingPathComponent(other), withDestinationURL: outside)
        await #expect {
            try await Backup.restore(from: backup, into: restored)
        } throws: { error in
            (error as? BackupError)?.description.contains("it is a link") == true
        }
        #expect(!FileManager.default.fileExists(atPath: restored.path))
        try FileManager.default.removeItem(at: backup.appendingPathComponent(other))
        try FileManager.default.moveItem(at: outside, to: backup.appendingPathComponent(other))
        var noDatabase = manifest
        noDatabase["files"] = listed.filter { $0["path"] as? String != "reverie.sqlite" }
        try JSONSerialization.data(withJSONObject: noDatabase).write(to: manifestFile)
        await #expect(throws: BackupError.damaged("reverie.sqlite", "the manifest lists no database; it is not a whole backup")) {
            try await Backup.restore(from: backup, into: restored)
        }
        #expect(!FileManager.default.fileExists(atPath: restored.path))
        try original.write(to: manifestFile)

        // One byte of the database changed.
        let database = backup.appendingPathComponent("reverie.sqlite")
        var bytes = try Data(contentsOf: database)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: database)
        await #expect(throws: BackupError.damaged("reverie.sqlite", "its contents changed (SHA-256 differs)")) {
            try await Backup.restore(from: backup, into: restored)
        }
        #expect(!FileManager.default.fileExists(atPath: restored.path))
        // A file gone, and a manifest that is not one.
        try FileManager.default.removeItem(at: database)
        #expect(throws: BackupError.damaged("reverie.sqlite", "it is missing")) { try BackupArchive.verify(backup) }
        try Data("{}".utf8).write(to: backup.appendingPathComponent("manifest.json"))
        #expect(throws: BackupError.damaged("manifest.json", "it is not a Reverie backup's manifest")) { try BackupArchive.verify(backup) }
    }

    @Test("the owner makes a backup from Settings: one at a time, followed as a job, listed, downloaded as a zip that restores into a server with everything, and removed; a member may do none of it")
    func fromSettings() async throws {
        let zipFile = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-download-\(UUID().uuidString).zip")
        let restored = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-restored-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: zipFile)
            try? FileManager.default.removeItem(at: restored)
        }
        var saved: UUID?
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: owner)
            saved = try await Self.save("Kept in the zip", client, bea)
            #expect(try await client.send(.GET, "/api/backups", auth: .cookie(owner)).decode(BackupList.self) == BackupList(backups: [], making: nil))
            // A member: refused everywhere.
            #expect(try await client.send(.GET, "/api/backups", auth: .cookie(bea)).status == .forbidden)
            #expect(try await client.send(.POST, "/api/backups", auth: .cookie(bea)).status == .forbidden)
            // Queued (the workers are not started yet), so a second is refused while it waits.
            let queued = try await client.send(.POST, "/api/backups", auth: .cookie(owner))
            #expect(queued.status == .accepted, "\(queued.text)")
            let job = try queued.decode(JobInfo.self)
            #expect(job.kind == "server.backup" && job.status == "queued")
            let again = try await client.send(.POST, "/api/backups", auth: .cookie(owner))
            #expect(again.status == .conflict && again.error?.code == "backup_running")
            #expect(try await client.send(.GET, "/api/backups", auth: .cookie(owner)).decode(BackupList.self).making?.id == job.id)
            client.app.jobs.start()
            let finished = try await PodcastAPITests.waitForJob(job.id, client, owner)
            #expect(finished.status == "done" && finished.progress == 1, "\(finished)")
            let list = try await client.send(.GET, "/api/backups", auth: .cookie(owner)).decode(BackupList.self)
            #expect(list.making == nil && list.backups.count == 1)
            let backup = try #require(list.backups.first)
            #expect(backup.id == job.id && backup.database == "sqlite" && backup.files >= 1 && backup.downloadURL == "/api/backups/\(job.id)")
            // The download: a zip, saved under the backup's date.
            #expect(try await client.send(.GET, backup.downloadURL, auth: .cookie(bea)).status == .forbidden)
            let download = try await client.send(.GET, backup.downloadURL, auth: .cookie(owner))
            #expect(download.status == .ok && download.headers.contentType == .zip && download.bytes.count == backup.bytes)
            #expect(download.headers.first(name: .contentDisposition)?.contains("reverie-backup-") == true)
            try download.bytes.write(to: zipFile)
            // Removed: gone from the list, and its address answers 404.
            #expect(try await client.send(.DELETE, backup.downloadURL, auth: .cookie(owner)).status == .noContent)
            #expect(try await client.send(.GET, "/api/backups", auth: .cookie(owner)).decode(BackupList.self).backups.isEmpty)
            #expect(try await client.send(.GET, backup.downloadURL, auth: .cookie(owner)).status == .notFound)
            #expect(try await client.send(.DELETE, backup.downloadURL, auth: .cookie(owner)).status == .notFound)
        }
        // The downloaded zip restores as a folder does, and a server on it has Bea's song.
        let manifest = try await Backup.restore(from: zipFile, into: restored)
        #expect(manifest.database == "sqlite")
        try await withTestApp(.sqlite, adjust: { config in
            config.dataDirectory = restored.path
            config.database = .sqlite(path: restored.appendingPathComponent("reverie.sqlite").path)
        }) { client in
            let bea = try await client.login("bea", "another secret")
            let songs = try await client.send(.GET, "/api/compositions", auth: .cookie(bea)).decode([CompositionSummary].self)
            #expect(songs.map(\.id) == [try #require(saved)])
        }
    }

    @Test("a damaged zip is refused with the file named: a changed byte, a file longer than listed, and a file that is not a zip")
    func damagedZip() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-zips-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("good.zip")
        try await withTestApp(.sqlite) { client in
            _ = try await client.setUpOwner()
            let sql = try #require(client.app.db as? any SQLDatabase)
            _ = try await Backup.makeZip(config: client.app.services.config, database: sql, to: good, scratch: folder.appendingPathComponent("scratch"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("scratch").path))
        let restored = folder.appendingPathComponent("restored")
        // The manifest, with one file's hash changed: the file is named.
        let changed = folder.appendingPathComponent("changed.zip")
        try Self.rewrite(good, to: changed) { path, data in
            guard path == "manifest.json" else { return data }
            var manifest = try JSONDecoder.iso8601.decode(Backup.Manifest.self, from: data)
            manifest.files[0].sha256 = String(repeating: "0", count: 64)
            return try JSONEncoder.iso8601.encode(manifest)
        }
        await #expect(throws: BackupError.damaged("reverie.sqlite", "its contents changed (SHA-256 differs)")) {
            try await Backup.restore(from: changed, into: restored)
        }
        #expect(!FileManager.default.fileExists(atPath: restored.path))
        // A file with more in it than its listing says (a bomb stops there).
        let longer = folder.appendingPathComponent("longer.zip")
        try Self.rewrite(good, to: longer) { path, data in path == "reverie.sqlite" ? data + Data(count: 1 << 20) : data }
        await #expect(throws: BackupError.self) { try await Backup.restore(from: longer, into: restored) }
        do {
            try await Backup.restore(from: longer, into: restored)
        } catch let error as BackupError {
            #expect(error.description.contains("reverie.sqlite") && error.description.contains("more than"), "\(error)")
        }
        // Not a zip at all.
        let text = folder.appendingPathComponent("notes.zip")
        try Data("not a zip".utf8).write(to: text)
        await #expect(throws: BackupError.damaged("notes.zip", "it is not a zip file")) { try await Backup.restore(from: text, into: restored) }
        #expect(!FileManager.default.fileExists(atPath: restored.path))
    }

    @Test("on PostgreSQL a backup is pg_dump's copy of Reverie's schema; restored into an empty database, a server on it has every song", arguments: TestDatabase.all.filter {
        if case .postgres = $0 { true } else { false }
    })
    func postgres(database: TestDatabase) async throws {
        guard case let .postgres(url) = database else { return }
        let backup = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-backup-\(UUID().uuidString)")
        let restored = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-restored-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: backup)
            try? FileManager.default.removeItem(at: restored)
        }
        var schema = ""
        var saved: Set<UUID> = []
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            for n in 0..<5 { saved.insert(try await Self.save("Song \(n)", client, owner)) }
            let config = client.app.services.config
            guard case let .postgres(_, searchPath?) = config.database else { Issue.record("no schema"); return }
            schema = searchPath[0]
            let sql = try #require(client.app.db as? any SQLDatabase)
            let manifest = try await Backup.make(config: config, database: sql, into: backup)
            #expect(manifest.database == "postgres" && manifest.files.first?.path == "reverie.pgdump")
        }
        // The test's schema is dropped with its app: the database is empty of it again.
        await #expect(throws: BackupError.needsDatabase) { try await Backup.restore(from: backup, into: restored) }
        try await Backup.restore(from: backup, into: restored, databaseURL: url)
        try await withTestApp(database, adjust: { config in
            config.dataDirectory = restored.path
            config.database = .postgres(url: url, searchPath: [schema])
        }) { client in
            let owner = try await client.login("ada", "correct horse")
            let songs = try await client.send(.GET, "/api/compositions", auth: .cookie(owner)).decode([CompositionSummary].self)
            #expect(Set(songs.map(\.id)) == saved)
            let sql = try #require(client.app.db as? any SQLDatabase)
            try await sql.raw("DROP SCHEMA IF EXISTS \(ident: schema) CASCADE").run()
        }
    }

    /// Copies the zip `source` to `target`, each entry's bytes through `change`.
    static func rewrite(_ source: URL, to target: URL, change: (String, Data) throws -> Data) throws {
        let input = try Archive(url: source, accessMode: .read)
        let output = try Archive(url: target, accessMode: .create)
        for entry in input {
            var data = Data()
            _ = try input.extract(entry) { data.append($0) }
            let changed = try change(entry.path, data)
            try output.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(changed.count)) { position, size in
                changed.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }

    static func save(_ title: String, _ client: TestClient, _ cookie: String) async throws -> UUID {
        let answer = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: title, lyrics: "\(title)\nline two"), auth: .cookie(cookie))
        guard answer.status == .created else { throw Abort(.internalServerError, reason: answer.text) }
        return try answer.decode(Composition.self).id
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension JSONEncoder {
    static var iso8601: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
