import Foundation
import ZIPFoundation

/// Takes the MP3 files out of a zip a person uploaded, trusting nothing in it: a cap on the
/// number of entries, on the bytes written (counted as they are written, not as declared) and on
/// each entry's compression ratio (a zip bomb), and no path from the archive ever names a file
/// on disk (each entry is written under a numbered folder of our own, by its last name only).
enum SafeZip {
    static let maxEntries = 5_000
    /// Audio barely compresses; a ratio past this is a bomb, not an audiobook.
    static let maxRatio: UInt64 = 100

    /// Whether the file starts as a zip does (a local file header).
    static func isZip(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Writes each `.mp3` entry to `directory/<n>/<last name>`; returns (where, the entry's path).
    /// - Throws: `APIError` 422 for a damaged or unsafe archive, 413 past `limit` bytes in all.
    static func extractMP3s(_ zip: URL, into directory: URL, limit: Int) throws -> [(file: URL, name: String)] {
        let archive: Archive
        do {
            archive = try Archive(url: zip, accessMode: .read)
        } catch {
            throw APIError(.unprocessableEntity, code: "damaged_archive", "The zip file cannot be read (\(error)); make it again and upload it.")
        }
        var found: [(file: URL, name: String)] = []
        var count = 0
        var written = 0
        for entry in archive {
            count += 1
            guard count <= maxEntries else {
                throw APIError(.unprocessableEntity, code: "damaged_archive", "The zip holds more than \(maxEntries) entries; an audiobook needs far fewer.")
            }
            let path = entry.path
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.hasPrefix("/"), !path.contains("\\"), !components.contains("..") else {
                throw APIError(.unprocessableEntity, code: "unsafe_archive", "The zip names a file outside itself (“\(path.prefix(100))”), so it was not opened.")
            }
            guard entry.type == .file, path.lowercased().hasSuffix(".mp3"), !components.contains(where: { $0 == "__MACOSX" || $0.hasPrefix(".") }) else { continue }
            if entry.compressedSize > 0, entry.uncompressedSize / entry.compressedSize > maxRatio {
                throw APIError(.unprocessableEntity, code: "unsafe_archive", "“\(path.prefix(100))” in the zip expands more than \(maxRatio) times: it is not audio.")
            }
            let folder = directory.appendingPathComponent(String(found.count), isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let last = String(components.last ?? "part.mp3").replacingOccurrences(of: "\0", with: "")
            let target = folder.appendingPathComponent(last.isEmpty ? "part.mp3" : last)
            FileManager.default.createFile(atPath: target.path, contents: nil)
            let handle = try FileHandle(forWritingTo: target)
            defer { try? handle.close() }
            do {
                _ = try archive.extract(entry, skipCRC32: false) { data in
                    written += data.count
                    guard written <= limit else { throw MediaUploadError.tooLarge(limit: limit) }
                    try handle.write(contentsOf: data)
                }
            } catch let error as APIError {
                throw error
            } catch {
                throw APIError(.unprocessableEntity, code: "damaged_archive", "“\(path.prefix(100))” in the zip is damaged (\(error)).")
            }
            found.append((target, path))
        }
        guard !found.isEmpty else {
            throw APIError(.unprocessableEntity, code: "damaged_archive", "The zip holds no MP3 files. A book from a zip is its MP3 parts; upload an M4B or MP3 file on its own otherwise.")
        }
        return found
    }
}
