import Foundation
import Reader
import ZIPFoundation

/// Takes the MP3 files out of a zip a person uploaded through `SafeArchive` (entry count, ratio,
/// bytes counted as written, no path that leaves the archive); each entry is written under a
/// numbered folder of our own, by its last name only, so no path from the archive names a file.
enum SafeZip {
    static let maxEntries = 5_000
    /// Audio barely compresses; a ratio past this is a bomb, not an audiobook.
    static let maxRatio: UInt64 = 100

    static func isZip(_ file: URL) -> Bool { SafeArchive.isZip(file) }

    /// Writes each `.mp3` entry to `directory/<n>/<last name>`; returns (where, the entry's path).
    /// - Throws: `ArchiveError` for a damaged or unsafe archive, or past `limit` bytes in all
    ///   (`ErrorTable` answers 422 and 413).
    static func extractMP3s(_ zip: URL, into directory: URL, limit: Int) throws -> [(file: URL, name: String)] {
        var archive = try SafeArchive(url: zip, limits: .init(maxEntries: maxEntries, maxRatio: maxRatio, maxBytes: limit))
        var found: [(file: URL, name: String)] = []
        for entry in archive.entries {
            let path = entry.path
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard entry.type == .file, path.lowercased().hasSuffix(".mp3"), !components.contains(where: { $0 == "__MACOSX" || $0.hasPrefix(".") }) else { continue }
            let folder = directory.appendingPathComponent(String(found.count), isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let last = String(components.last ?? "part.mp3")
            let target = folder.appendingPathComponent(last.isEmpty ? "part.mp3" : last)
            _ = FileManager.default.createFile(atPath: target.path, contents: nil)
            let handle = try FileHandle(forWritingTo: target)
            defer { try? handle.close() }
            try archive.extract(entry) { try handle.write(contentsOf: $0) }
            found.append((target, path))
        }
        guard !found.isEmpty else {
            throw APIError(.unprocessableEntity, code: "damaged_archive", "The zip holds no MP3 files. A book from a zip is its MP3 parts; upload an M4B or MP3 file on its own otherwise.")
        }
        return found
    }
}
