import FluentSQL
import Foundation
import NIOConcurrencyHelpers
@testable import ReverieServer
import ReverieAPI
import Testing
import Vapor

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
            #expect(try Backup.verify(backup) == manifest)
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
            let sql = try #require(client.app.db as? any SQLDatabase)
            _ = try await Backup.make(config: client.app.services.config, database: sql, into: backup)
        }
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
        #expect(throws: BackupError.damaged("reverie.sqlite", "it is missing")) { try Backup.verify(backup) }
        try Data("{}".utf8).write(to: backup.appendingPathComponent("manifest.json"))
        #expect(throws: BackupError.damaged("manifest.json", "it is not a Reverie backup's manifest")) { try Backup.verify(backup) }
    }

    static func save(_ title: String, _ client: TestClient, _ cookie: String) async throws -> UUID {
        let answer = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: title, lyrics: "\(title)\nline two"), auth: .cookie(cookie))
        guard answer.status == .created else { throw Abort(.internalServerError, reason: answer.text) }
        return try answer.decode(Composition.self).id
    }
}
