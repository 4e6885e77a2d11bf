import CReverieZlib
import Foundation

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
/// as declared); no entry whose path leaves the archive is ever read; and an entry's data is read
/// only from where its header says, no further than its compressed size, so a deflate stream
/// that never ends is damaged rather than a loop. Audiobook zips, EPUBs and backups go through it.
///
/// Reads the zip itself (the central directory, ZIP64 included, and stored or deflated entries
/// through zlib): ZIPFoundation 0.9.20's inflate on Linux reads past an entry's end and spins
/// forever at the end of the file when a deflate stream does not finish (found by `make fuzz`).
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

    /// One entry, as the central directory lists it.
    public struct Entry: Equatable, Sendable {
        public enum EntryType: Sendable { case file, directory, symlink }
        public let path: String
        public let type: EntryType
        public let compressedSize: UInt64
        public let uncompressedSize: UInt64
        let method: UInt16
        let flags: UInt16
        let crc32: UInt32
        let localHeaderOffset: UInt64
    }

    let file: FileHandle
    let fileSize: UInt64
    public let limits: Limits
    /// The entries, checked, in the archive's order.
    public let entries: [Entry]
    /// The first entry of each path, for `entry(_:)` (a backup may list a hundred thousand).
    let byPath: [String: Entry]
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
        guard let file = try? FileHandle(forReadingFrom: url) else { throw ArchiveError.unreadable("it cannot be opened") }
        self.file = file
        self.limits = limits
        do {
            fileSize = try file.seekToEnd()
            entries = try Self.directory(of: file, size: fileSize, limits: limits)
            byPath = Dictionary(entries.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            try? file.close()
            throw error
        }
    }

    /// The entry at exactly `path`, if there is one.
    public func entry(_ path: String) -> Entry? { byPath[path] }

    /// Hands an entry's bytes to `consumer` as they come out, counting them against the limit.
    public mutating func extract(_ entry: Entry, _ consumer: (Data) throws -> Void) throws {
        var count = written
        let limit = limits.maxBytes
        defer { written = count }
        try read(entry) { data in
            count += data.count
            guard count <= limit else { throw ArchiveError.tooLarge(limit: limit) }
            try consumer(data)
        }
    }

    /// An entry's bytes, counted against the limit.
    public mutating func data(_ entry: Entry) throws -> Data {
        var data = Data()
        try extract(entry) { data.append($0) }
        return data
    }

    // MARK: - The central directory

    static let chunk = 64 << 10

    /// Little-endian fields of a record, each read checked against the record's end.
    struct Fields {
        let bytes: Data
        var at: Int

        init(_ bytes: Data, at: Int = 0) {
            self.bytes = bytes
            self.at = at
        }

        mutating func skip(_ count: Int) throws {
            guard count >= 0, at + count <= bytes.count else { throw ArchiveError.unreadable("a record runs past its end") }
            at += count
        }

        mutating func integer(_ width: Int) throws -> UInt64 {
            guard at + width <= bytes.count else { throw ArchiveError.unreadable("a record runs past its end") }
            var value: UInt64 = 0
            for index in 0..<width { value |= UInt64(bytes[bytes.startIndex + at + index]) << (8 * index) }
            at += width
            return value
        }

        mutating func take(_ count: Int) throws -> Data {
            guard count >= 0, at + count <= bytes.count else { throw ArchiveError.unreadable("a record runs past its end") }
            defer { at += count }
            return bytes.subdata(in: bytes.startIndex + at..<bytes.startIndex + at + count)
        }
    }

    static func read(_ file: FileHandle, at offset: UInt64, count: Int, size: UInt64) throws -> Data {
        guard offset <= size, UInt64(count) <= size - offset else { throw ArchiveError.unreadable("it is shorter than its directory says") }
        try file.seek(toOffset: offset)
        let data = try file.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ArchiveError.unreadable("it is shorter than its directory says") }
        return data
    }

    static func directory(of file: FileHandle, size: UInt64, limits: Limits) throws -> [Entry] {
        // The end record: the last one in the final 64 KiB (its comment may follow it).
        let tailLength = Int(min(size, 65_535 + 22))
        let tail = try read(file, at: size - UInt64(tailLength), count: tailLength, size: size)
        guard tailLength >= 22, let end = (0...(tailLength - 22)).reversed().first(where: {
            tail[tail.startIndex + $0] == 0x50 && tail[tail.startIndex + $0 + 1] == 0x4B && tail[tail.startIndex + $0 + 2] == 0x05 && tail[tail.startIndex + $0 + 3] == 0x06
        }) else { throw ArchiveError.unreadable("it has no zip directory") }
        var record = Fields(tail, at: end + 4)
        try record.skip(6)
        var count = try record.integer(2)
        var directorySize = try record.integer(4)
        var directoryOffset = try record.integer(4)
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // ZIP64: the locator just before the end record names the ZIP64 end record.
            let endOffset = size - UInt64(tailLength) + UInt64(end)
            guard endOffset >= 20 else { throw ArchiveError.unreadable("its ZIP64 directory is missing") }
            var locator = Fields(try read(file, at: endOffset - 20, count: 20, size: size))
            guard try locator.integer(4) == 0x0706_4B50 else { throw ArchiveError.unreadable("its ZIP64 directory is missing") }
            try locator.skip(4)
            var record64 = Fields(try read(file, at: try locator.integer(8), count: 56, size: size))
            guard try record64.integer(4) == 0x0606_4B50 else { throw ArchiveError.unreadable("its ZIP64 directory is damaged") }
            try record64.skip(28)
            count = try record64.integer(8)
            directorySize = try record64.integer(8)
            directoryOffset = try record64.integer(8)
        }
        guard count <= UInt64(limits.maxEntries) else { throw ArchiveError.tooManyEntries(limits.maxEntries) }
        // Each entry's record is at least 46 bytes, so a directory larger than that many is not one.
        guard directorySize <= UInt64(limits.maxEntries) * (46 + 3 * 65_535), directorySize <= 256 << 20 else {
            throw ArchiveError.tooManyEntries(limits.maxEntries)
        }
        var directory = Fields(try read(file, at: directoryOffset, count: Int(directorySize), size: size))
        var entries: [Entry] = []
        while entries.count < Int(count) {
            guard try directory.integer(4) == 0x0201_4B50 else { throw ArchiveError.unreadable("its directory is damaged") }
            let madeBy = try directory.integer(2)
            try directory.skip(2)
            let flags = UInt16(try directory.integer(2))
            let method = UInt16(try directory.integer(2))
            try directory.skip(4)
            let crc = UInt32(try directory.integer(4))
            var compressed = try directory.integer(4)
            var uncompressed = try directory.integer(4)
            let nameLength = Int(try directory.integer(2))
            let extraLength = Int(try directory.integer(2))
            let commentLength = Int(try directory.integer(2))
            try directory.skip(4)
            let attributes = try directory.integer(4)
            var offset = try directory.integer(4)
            let name = try directory.take(nameLength)
            var extra = Fields(try directory.take(extraLength))
            try directory.skip(commentLength)
            // ZIP64 sizes and offset, for the fields that say 0xFFFFFFFF.
            while extra.at + 4 <= extra.bytes.count {
                let id = try extra.integer(2)
                let length = Int(try extra.integer(2))
                var field = Fields(try extra.take(length))
                guard id == 0x0001 else { continue }
                if uncompressed == 0xFFFF_FFFF { uncompressed = try field.integer(8) }
                if compressed == 0xFFFF_FFFF { compressed = try field.integer(8) }
                if offset == 0xFFFF_FFFF { offset = try field.integer(8) }
            }
            let path = String(decoding: name, as: UTF8.self)
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0"), !components.contains("..") else {
                throw ArchiveError.unsafePath(path)
            }
            // Unix modes (made on Unix: the upper half of the attributes) say links and folders.
            let mode = madeBy >> 8 == 3 ? (attributes >> 16) & 0o170000 : 0
            let type: Entry.EntryType = mode == 0o120000 ? .symlink : (mode == 0o040000 || path.hasSuffix("/")) ? .directory : .file
            if type == .file, compressed > 0, uncompressed / compressed > limits.maxRatio { throw ArchiveError.bomb(path) }
            if type == .file, compressed == 0, uncompressed > 0 { throw ArchiveError.bomb(path) }
            entries.append(Entry(path: path, type: type, compressedSize: compressed, uncompressedSize: uncompressed,
                                 method: method, flags: flags, crc32: crc, localHeaderOffset: offset))
        }
        return entries
    }

    // MARK: - An entry's data

    /// Reads `entry`'s data from where its local header says, no further than its compressed
    /// size: stored as it is, deflated through zlib. What comes out must be the size and CRC-32
    /// the directory lists.
    func read(_ entry: Entry, _ consumer: (Data) throws -> Void) throws {
        guard entry.type == .file else { throw ArchiveError.damaged(entry.path) }
        // Encrypted entries are not read.
        guard entry.flags & 1 == 0 else { throw ArchiveError.damaged(entry.path) }
        var header = Fields(try Self.read(file, at: entry.localHeaderOffset, count: 30, size: fileSize))
        guard try header.integer(4) == 0x0403_4B50 else { throw ArchiveError.damaged(entry.path) }
        try header.skip(22)
        let start = entry.localHeaderOffset + 30 + (try header.integer(2)) + (try header.integer(2))
        guard start <= fileSize, entry.compressedSize <= fileSize - start else { throw ArchiveError.damaged(entry.path) }
        try file.seek(toOffset: start)
        var remaining = entry.compressedSize
        /// The next piece of the entry's compressed bytes; empty at its end.
        func next() throws -> Data {
            guard remaining > 0 else { return Data() }
            let piece = try file.read(upToCount: Int(min(remaining, UInt64(Self.chunk)))) ?? Data()
            guard !piece.isEmpty else { throw ArchiveError.damaged(entry.path) }
            remaining -= UInt64(piece.count)
            return piece
        }
        var crc = CReverieZlib.crc32(0, nil, 0)
        var produced: UInt64 = 0
        func out(_ data: Data) throws {
            produced += UInt64(data.count)
            guard produced <= entry.uncompressedSize else { throw ArchiveError.damaged(entry.path) }
            crc = data.withUnsafeBytes { CReverieZlib.crc32(crc, $0.bindMemory(to: Bytef.self).baseAddress, uInt($0.count)) }
            try consumer(data)
        }
        switch entry.method {
        case 0:
            while case let piece = try next(), !piece.isEmpty { try out(piece) }
        case 8:
            try Self.inflate(next: next, out: out, path: entry.path)
        default:
            throw ArchiveError.damaged(entry.path)
        }
        guard produced == entry.uncompressedSize, UInt32(crc) == entry.crc32 else { throw ArchiveError.damaged(entry.path) }
    }

    /// A raw deflate stream from `next` (empty at the entry's end) to `out`; a stream that has not
    /// ended when its bytes have is damaged.
    static func inflate(next: () throws -> Data, out: (Data) throws -> Void, path: String) throws {
        var stream = z_stream()
        guard reverie_inflate_init_raw(&stream) == Z_OK else { throw ArchiveError.damaged(path) }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: chunk)
        var ended = false
        while !ended {
            var input = try next()
            guard !input.isEmpty else { throw ArchiveError.damaged(path) }
            try input.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
                stream.next_in = buffer.bindMemory(to: Bytef.self).baseAddress
                stream.avail_in = uInt(buffer.count)
                repeat {
                    let status = output.withUnsafeMutableBufferPointer { target -> Int32 in
                        stream.next_out = target.baseAddress
                        stream.avail_out = uInt(target.count)
                        return CReverieZlib.inflate(&stream, Z_NO_FLUSH)
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw ArchiveError.damaged(path) }
                    let made = chunk - Int(stream.avail_out)
                    if made > 0 { try out(Data(output[0..<made])) }
                    if status == Z_STREAM_END { ended = true; break }
                    // No room was the only thing missing: go on while output comes; else feed more.
                    if made == 0 && stream.avail_in == 0 { break }
                    if status == Z_BUF_ERROR && made == 0 { break }
                } while stream.avail_in > 0 || stream.avail_out == 0
            }
            stream.next_in = nil
        }
    }
}
