import Foundation
import ZIPFoundation

/// Why an archive was not opened, in words a person can act on.
public enum ArchiveError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case tooManyEntries(Int)
    /// An entry names a place outside the archive (`../x`, `/etc/x`, `a\b`).
    case unsafePath(String)
    /// An entry expands far more than real content does.
    case bomb(String)
    /// More than this many bytes would come out in all.
    case tooLarge(limit: Int)
    case damaged(String)
    /// An audiobook's zip with no MP3 file in it (`AudiobookZip`).
    case noMP3s

    public var description: String {
        switch self {
        case let .unreadable(reason): "The zip file cannot be read (\(reason)); make it again and upload it."
        case let .tooManyEntries(limit): "The zip holds more than \(limit) entries, far more than it should."
        case let .unsafePath(path): "The zip names a file outside itself (“\(path.prefix(100))”), so it was not opened."
        case let .bomb(path): "“\(path.prefix(100))” in the zip expands far more than real content does: it is a zip bomb, so it was not opened."
        case let .tooLarge(limit): "The zip would unpack to more than \(ByteCountFormatter.string(fromByteCount: Int64(limit), countStyle: .binary))."
        case let .damaged(path): "“\(path.prefix(100))” in the zip is damaged."
        case .noMP3s: "The zip holds no MP3 files. A book from a zip is its MP3 parts; upload an M4B or MP3 file on its own otherwise."
        }
    }
}

/// A zip someone gave us, read trusting nothing in it: a cap on the number of entries, on each
/// entry's compression ratio, and on the bytes that come out in all (counted as they come, not
/// as declared); and no entry whose path leaves the archive is ever read. Audiobook zips and
/// EPUBs both go through it.
public struct SafeArchive {
    public struct Limits: Sendable {
        public var maxEntries: Int
        /// Expansion past this (uncompressed over compressed) is a bomb.
        public var maxRatio: UInt64
        /// Bytes read out in all.
        public var maxBytes: Int
        public init(maxEntries: Int, maxRatio: UInt64, maxBytes: Int) {
            self.maxEntries = maxEntries
            self.maxRatio = maxRatio
            self.maxBytes = maxBytes
        }
    }

    let archive: Archive
    public let limits: Limits
    /// The entries, checked, in the archive's order.
    public let entries: [Entry]
    /// Bytes read out so far.
    public private(set) var written = 0

    /// Whether the file starts as a zip does (a local file header).
    public static func isZip(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Opens the zip at `url` and checks every entry's path, the entry count and each ratio.
    public init(url: URL, limits: Limits) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw ArchiveError.unreadable("\(error)")
        }
        self.archive = archive
        self.limits = limits
        var entries: [Entry] = []
        for entry in archive {
            guard entries.count < limits.maxEntries else { throw ArchiveError.tooManyEntries(limits.maxEntries) }
            let path = entry.path
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0"), !components.contains("..") else {
                throw ArchiveError.unsafePath(path)
            }
            if entry.type == .file, entry.compressedSize > 0, entry.uncompressedSize / entry.compressedSize > limits.maxRatio {
                throw ArchiveError.bomb(path)
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// The entry at exactly `path`, if there is one.
    public func entry(_ path: String) -> Entry? { entries.first { $0.path == path } }

    /// Hands an entry's bytes to `consumer` as they come out, counting them against the limit.
    public mutating func extract(_ entry: Entry, _ consumer: (Data) throws -> Void) throws {
        var count = written
        let limit = limits.maxBytes
        defer { written = count }
        do {
            _ = try archive.extract(entry, skipCRC32: false) { data in
                count += data.count
                guard count <= limit else { throw ArchiveError.tooLarge(limit: limit) }
                try consumer(data)
            }
        } catch let error as ArchiveError {
            throw error
        } catch {
            if let _ = error as? CancellationError { throw error }
            throw ArchiveError.damaged(entry.path)
        }
    }

    /// An entry's bytes, counted against the limit.
    public mutating func data(_ entry: Entry) throws -> Data {
        var data = Data()
        try extract(entry) { data.append($0) }
        return data
    }
}
