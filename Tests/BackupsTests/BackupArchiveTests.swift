import Backups
import Foundation
import Testing
import ZIPFoundation

@Suite("A backup's files: written to a folder or a zip with their checksums, and a zip unpacked only as its manifest lists")
struct BackupArchiveTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("backups-tests-\(UUID().uuidString)")

    /// A data folder with two files, the same backup made as a folder and as a zip.
    func made() throws -> (folder: URL, zip: URL, manifest: BackupManifest) {
        let data = root.appendingPathComponent("data/media/library")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 300_000).write(to: data.appendingPathComponent("a.mp3"))
        try Data("cover".utf8).write(to: data.appendingPathComponent("b.jpg"))
        try Data("scratch".utf8).write(to: data.appendingPathComponent(".arriving"))
        let listed = try BackupArchive.filesUnder(root.appendingPathComponent("data/media"), prefix: "media")
        #expect(listed == ["media/library/a.mp3", "media/library/b.jpg"], "scratch files (a dot in front) are left out")
        let folder = root.appendingPathComponent("folder")
        let zip = root.appendingPathComponent("backup.zip")
        var manifests: [BackupManifest] = []
        let folderWriter = BackupArchive.FolderWriter(folder: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zipWriter = try BackupArchive.ZipWriter(file: zip, scratch: root.appendingPathComponent("scratch"))
        for writer in [folderWriter as any BackupArchive.Writer, zipWriter] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("scratch"), withIntermediateDirectories: true)
            try Data("database".utf8).write(to: writer.place(for: "reverie.sqlite"))
            var entries = [try writer.placed("reverie.sqlite")]
            for relative in listed {
                entries += [try writer.add(root.appendingPathComponent("data").appendingPathComponent(relative), as: relative)].compactMap { $0 }
            }
            #expect(try writer.add(root.appendingPathComponent("data/gone"), as: "media/gone") == nil, "a file removed meanwhile is left out")
            let manifest = BackupManifest(createdAt: Date(timeIntervalSince1970: 1_800_000_000), database: "sqlite", files: entries)
            try writer.finish(manifest: BackupArchive.encode(manifest), as: BackupArchive.manifestName)
            manifests.append(manifest)
        }
        #expect(manifests[0] == manifests[1], "the folder and the zip list the same files with the same checksums")
        return (folder, zip, manifests[0])
    }

    @Test("a folder and a zip of the same files agree; the zip unpacks to what the folder holds")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let (folder, zip, manifest) = try made()
        #expect(try BackupArchive.verify(folder) == manifest)
        let unpacked = root.appendingPathComponent("unpacked")
        try BackupArchive.unpack(zip, into: unpacked)
        #expect(try BackupArchive.verify(unpacked) == manifest)
        #expect(try Data(contentsOf: unpacked.appendingPathComponent("media/library/a.mp3")) == Data(repeating: 7, count: 300_000))
        #expect(manifest.files.map(\.path) == ["reverie.sqlite", "media/library/a.mp3", "media/library/b.jpg"])
    }

    @Test("a zip whose manifest leads out of the backup, lists a file it lacks, or carries files it does not list: nothing lands outside, nothing unlisted is unpacked")
    func hostile() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        func zip(_ name: String, manifest: BackupManifest, extra: [String: Data]) throws -> URL {
            let url = root.appendingPathComponent(name)
            let archive = try Archive(url: url, accessMode: .create)
            var files = extra
            files[BackupArchive.manifestName] = try BackupArchive.encode(manifest)
            for (path, data) in files.sorted(by: { $0.key < $1.key }) {
                try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count)) { position, size in
                    data.subdata(in: Int(position)..<Int(position) + size)
                }
            }
            return url
        }
        let entry = { (path: String) in BackupManifest.Entry(path: path, bytes: 4, sha256: String(repeating: "0", count: 64)) }
        let out = try zip("out.zip", manifest: BackupManifest(createdAt: Date(), database: "sqlite", files: [entry("../escaped")]), extra: ["../escaped": Data("evil".utf8)])
        #expect(throws: BackupError.damaged("../escaped", "its path leads out of the backup")) { try BackupArchive.unpack(out, into: root.appendingPathComponent("a")) }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("escaped").path))
        let missing = try zip("missing.zip", manifest: BackupManifest(createdAt: Date(), database: "sqlite", files: [entry("reverie.sqlite")]), extra: [:])
        #expect(throws: BackupError.damaged("reverie.sqlite", "it is missing")) { try BackupArchive.unpack(missing, into: root.appendingPathComponent("b")) }
        let unlisted = try zip("unlisted.zip", manifest: BackupManifest(createdAt: Date(), database: "sqlite", files: []), extra: ["tls/ca.key": Data("not asked for".utf8)])
        try BackupArchive.unpack(unlisted, into: root.appendingPathComponent("c"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("c/tls/ca.key").path))
        #expect(throws: BackupError.damaged(BackupArchive.manifestName, "it is missing from nothing.zip")) {
            let empty = root.appendingPathComponent("nothing.zip")
            _ = try Archive(url: empty, accessMode: .create)
            try BackupArchive.unpack(empty, into: root.appendingPathComponent("d"))
        }
    }
}
