import Archives
import Foundation
import Testing
import ZIPFoundation

@Suite("Zips read trusting nothing: entries as their directory lists them, no further than their compressed size")
struct SafeArchiveTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archives-tests-\(UUID().uuidString)")
    let limits = SafeArchive.Limits(maxEntries: 10, maxRatio: 1000, maxBytes: 1 << 20)

    /// A zip of `entries` (path, bytes, deflated?) made by ZIPFoundation.
    func zip(_ name: String, _ entries: [(String, Data, Bool)]) throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data, deflated) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: deflated ? .deflate : .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    /// Replaces the two-byte little-endian field `offset` bytes into every record with `signature`.
    func patch(_ url: URL, signature: [UInt8], offset: Int, to value: UInt32, width: Int) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        for start in 0..<(bytes.count - 4) where Array(bytes[start..<start + 4]) == signature {
            for index in 0..<width { bytes[start + offset + index] = UInt8((value >> (8 * index)) & 0xFF) }
        }
        try Data(bytes).write(to: url)
    }

    @Test("stored and deflated entries come out as they went in, counted against the limit")
    func reads() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = Data(String(repeating: "A quiet line of a bedtime story. ", count: 400).utf8)
        let noise = Data((0..<5000).map { UInt8(($0 * 7919) % 251) })
        var archive = try SafeArchive(url: try zip("two.zip", [("a/story.txt", text, true), ("b/noise.bin", noise, false)]), limits: limits)
        #expect(archive.entries.map(\.path) == ["a/story.txt", "b/noise.bin"] && archive.entries.allSatisfy { $0.type == .file })
        #expect(try archive.data(try #require(archive.entry("a/story.txt"))) == text)
        #expect(try archive.data(try #require(archive.entry("b/noise.bin"))) == noise)
        #expect(archive.written == text.count + noise.count)
        var small = try SafeArchive(url: try zip("big.zip", [("a", text, true)]), limits: .init(maxEntries: 10, maxRatio: 1000, maxBytes: 1000))
        #expect(throws: ArchiveError.tooLarge(limit: 1000)) { try small.data(small.entries[0]) }
    }

    @Test("a deflate stream that never ends is damaged at once (it made ZIPFoundation spin forever), and so is a changed byte")
    func unending() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A stored block that claims 65,535 bytes where a few follow: inflate wants more forever.
        let unending = Data([0x00, 0xFF, 0xFF, 0x00, 0x00]) + Data("only a little".utf8)
        let url = try zip("unending.zip", [("manifest.json", unending, false)])
        // Say it is deflated, of 1,000 bytes, in both the local header and the directory.
        try patch(url, signature: [0x50, 0x4B, 0x03, 0x04], offset: 8, to: 8, width: 2)
        try patch(url, signature: [0x50, 0x4B, 0x01, 0x02], offset: 10, to: 8, width: 2)
        try patch(url, signature: [0x50, 0x4B, 0x03, 0x04], offset: 22, to: 1000, width: 4)
        try patch(url, signature: [0x50, 0x4B, 0x01, 0x02], offset: 24, to: 1000, width: 4)
        var archive = try SafeArchive(url: url, limits: limits)
        #expect(throws: ArchiveError.damaged("manifest.json")) { try archive.data(archive.entries[0]) }

        // One byte of a stored entry changed: its CRC-32 no longer matches.
        let plain = try zip("plain.zip", [("a.txt", Data("hello there".utf8), false)])
        var bytes = try Data(contentsOf: plain)
        let at = try #require(bytes.range(of: Data("hello".utf8))).lowerBound
        bytes[at] = UInt8(ascii: "j")
        try bytes.write(to: plain)
        var changed = try SafeArchive(url: plain, limits: limits)
        #expect(throws: ArchiveError.damaged("a.txt")) { try changed.data(changed.entries[0]) }
    }

    /// A one-entry stored zip written by hand in ZIP64 form, as a backup past 4 GiB is: the
    /// directory's sizes and offset say 0xFFFFFFFF and its ZIP64 field has them, and the end
    /// record points to a ZIP64 end record through its locator.
    func zip64(_ name: String, path: String, data: Data) throws -> URL {
        var bytes = Data()
        func put(_ value: UInt64, _ width: Int) { for index in 0..<width { bytes.append(UInt8((value >> (8 * index)) & 0xFF)) } }
        let crc = UInt64(data.crc32(checksum: 0))
        let nameBytes = Data(path.utf8)
        // Local header, then the data.
        put(0x0403_4B50, 4); put(45, 2); put(0, 2); put(0, 2); put(0, 4); put(crc, 4)
        put(UInt64(data.count), 4); put(UInt64(data.count), 4); put(UInt64(nameBytes.count), 2); put(0, 2)
        bytes.append(nameBytes); bytes.append(data)
        // The directory's one entry.
        let directoryOffset = bytes.count
        put(0x0201_4B50, 4); put(0x031E, 2); put(45, 2); put(0, 2); put(0, 2); put(0, 4); put(crc, 4)
        put(0xFFFF_FFFF, 4); put(0xFFFF_FFFF, 4); put(UInt64(nameBytes.count), 2); put(28, 2); put(0, 2)
        put(0, 2); put(0, 2); put(0o100644 << 16, 4); put(0xFFFF_FFFF, 4)
        bytes.append(nameBytes)
        put(0x0001, 2); put(24, 2); put(UInt64(data.count), 8); put(UInt64(data.count), 8); put(0, 8)
        let directorySize = bytes.count - directoryOffset
        // The ZIP64 end record, its locator, and the end record that sends a reader to them.
        let record64 = bytes.count
        put(0x0606_4B50, 4); put(44, 8); put(45, 2); put(45, 2); put(0, 4); put(0, 4)
        put(1, 8); put(1, 8); put(UInt64(directorySize), 8); put(UInt64(directoryOffset), 8)
        put(0x0706_4B50, 4); put(0, 4); put(UInt64(record64), 8); put(1, 4)
        put(0x0605_4B50, 4); put(0, 2); put(0, 2); put(0xFFFF, 2); put(0xFFFF, 2); put(0xFFFF_FFFF, 4); put(0xFFFF_FFFF, 4); put(0, 2)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }

    @Test("a ZIP64 zip (a backup past 4 GiB) is read through its ZIP64 records (the same bytes made in Python read back with zipfile and unzip)")
    func zip64Entries() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = Data("the database, or an hour of rain".utf8)
        let url = try zip64("big.zip", path: "media/rain.m4a", data: data)
        var archive = try SafeArchive(url: url, limits: limits)
        #expect(archive.entries.map(\.path) == ["media/rain.m4a"] && archive.entries[0].uncompressedSize == UInt64(data.count))
        #expect(try archive.data(archive.entries[0]) == data)
    }

    @Test("paths out of the archive, too many entries, a ratio past the cap, and bytes that are not a zip are refused before anything is read")
    func refused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: ArchiveError.unsafePath("../evil")) { try SafeArchive(url: try zip("out.zip", [("../evil", Data("x".utf8), false)]), limits: limits) }
        #expect(throws: ArchiveError.tooManyEntries(2)) {
            try SafeArchive(url: try zip("many.zip", (0..<3).map { ("f\($0)", Data("x".utf8), false) }), limits: .init(maxEntries: 2, maxRatio: 1000, maxBytes: 100))
        }
        #expect(throws: ArchiveError.bomb("zeros")) {
            try SafeArchive(url: try zip("bomb.zip", [("zeros", Data(count: 1 << 20), true)]), limits: .init(maxEntries: 2, maxRatio: 100, maxBytes: 1 << 21))
        }
        let text = folder.appendingPathComponent("text.zip")
        try Data("not a zip at all".utf8).write(to: text)
        #expect(throws: ArchiveError.self) { try SafeArchive(url: text, limits: limits) }
    }
}
