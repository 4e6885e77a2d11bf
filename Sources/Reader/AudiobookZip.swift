import Foundation
import Archives

/// The MP3 parts of an audiobook a person uploaded as a zip, taken out through `SafeArchive`
/// (entry count, ratio, bytes counted as written, no path that leaves the archive); each entry is
/// written under a numbered folder of our own, by its last name only, so no path from the archive
/// names a file. The Listen library joins the parts into one book (`MediaFormats.MP3Book`).
public enum AudiobookZip {
    /// More entries than this and the zip is refused.
    public static let maxEntries = 5_000
    /// Audio barely compresses; a ratio past this is a bomb, not an audiobook.
    public static let maxRatio: UInt64 = 100

    /// Writes each `.mp3` entry (not a folder, nothing under `__MACOSX` or a hidden name) to
    /// `directory/<n>/<last name>`, in the archive's order; returns (where, the entry's path).
    /// - Parameter limit: bytes taken out in all.
    /// - Throws: `ArchiveError` for a damaged or unsafe archive, past `limit` bytes in all, or
    ///   one with no MP3 file (`.noMP3s`).
    public static func extractMP3s(_ zip: URL, into directory: URL, limit: Int) throws -> [(file: URL, name: String)] {
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
        guard !found.isEmpty else { throw ArchiveError.noMP3s }
        return found
    }
}
