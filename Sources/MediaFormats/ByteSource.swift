import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to a file's bytes, so a parser reads only the parts it needs (an MP4's `moov`
/// at the end of a 500 MB book, an MP3's last 128 bytes) and never the whole file.
public protocol ByteSource {
    /// Total size in bytes.
    var size: Int64 { get }
    /// Up to `count` bytes from `offset`; fewer only at the end of the source.
    func bytes(at offset: Int64, count: Int) throws -> [UInt8]
}

/// Bytes already in memory.
public struct MemoryByteSource: ByteSource {
    private let storage: [UInt8]

    public init(_ data: Data) {
        storage = [UInt8](data)
    }

    public init(_ bytes: [UInt8]) {
        storage = bytes
    }

    public var size: Int64 { Int64(storage.count) }

    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset < size else { return [] }
        let start = Int(offset)
        return Array(storage[start..<min(storage.count, start + count)])
    }
}

/// A file on disk, read with `pread` (no shared file position, so no seeking state).
public final class FileByteSource: ByteSource {
    private let descriptor: Int32
    public let size: Int64

    /// Opens `path` for reading.
    /// - Throws: `MediaFormatsError.unreadable` when it cannot be opened or is not a regular file.
    public init(path: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaFormatsError.unreadable("\(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw MediaFormatsError.unreadable("\(path) is not a regular file")
        }
        size = Int64(info.st_size)
    }

    deinit {
        close(descriptor)
    }

    public func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        var result = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let got = result.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, wanted - done, off_t(offset) + off_t(done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw MediaFormatsError.unreadable(String(cString: strerror(errno)))
            }
            if got == 0 { break }
            done += got
        }
        if done < wanted { result.removeLast(wanted - done) }
        return result
    }
}

// MARK: - Reading numbers

/// A bounds-checked reader over a byte array: every read past the end throws instead of trapping.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        position = max(0, min(start, bytes.count))
        self.end = max(position, min(end ?? bytes.count, bytes.count))
    }

    var remaining: Int { end - position }
    var isAtEnd: Bool { position >= end }

    mutating func require(_ count: Int, _ what: @autoclosure () -> String) throws {
        guard count >= 0, count <= remaining else { throw MediaFormatsError.malformed("\(what()) is cut short") }
    }

    mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "a field") throws {
        try require(count, what())
        position += count
    }

    mutating func u8(_ what: @autoclosure () -> String = "a field") throws -> UInt8 {
        try require(1, what())
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16(_ what: @autoclosure () -> String = "a field") throws -> UInt16 {
        try require(2, what())
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func u24(_ what: @autoclosure () -> String = "a field") throws -> UInt32 {
        try require(3, what())
        defer { position += 3 }
        return UInt32(bytes[position]) << 16 | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2])
    }

    mutating func u32(_ what: @autoclosure () -> String = "a field") throws -> UInt32 {
        try require(4, what())
        defer { position += 4 }
        return Self.u32(bytes, position)
    }

    mutating func u64(_ what: @autoclosure () -> String = "a field") throws -> UInt64 {
        let high = try u32(what())
        let low = try u32(what())
        return UInt64(high) << 32 | UInt64(low)
    }

    mutating func take(_ count: Int, _ what: @autoclosure () -> String = "a field") throws -> ArraySlice<UInt8> {
        try require(count, what())
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// Bytes up to (not including) the next zero byte, which is skipped; to the end when there is none.
    mutating func latin1CString() -> ArraySlice<UInt8> {
        let start = position
        while position < end, bytes[position] != 0 { position += 1 }
        let result = bytes[start..<position]
        if position < end { position += 1 }
        return result
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}

// MARK: - Text

enum TextDecoding {
    /// ISO-8859-1: each byte is the code point of the same number.
    static func latin1<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// UTF-8, with damaged sequences replaced rather than refused.
    static func utf8<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes, as: UTF8.self)
    }

    /// UTF-16 with an optional byte-order mark; big-endian when there is none (unless `littleEndian`).
    static func utf16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool = false) -> String {
        var little = littleEndian
        var slice = bytes
        if slice.count >= 2 {
            let first = slice[slice.startIndex], second = slice[slice.startIndex + 1]
            if first == 0xFF, second == 0xFE { little = true; slice = slice.dropFirst(2) }
            else if first == 0xFE, second == 0xFF { little = false; slice = slice.dropFirst(2) }
        }
        var units: [UInt16] = []
        units.reserveCapacity(slice.count / 2)
        var index = slice.startIndex
        while index + 1 < slice.endIndex {
            let a = UInt16(slice[index]), b = UInt16(slice[index + 1])
            units.append(little ? (b << 8 | a) : (a << 8 | b))
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// A tag value as people see it: no surrounding spaces or trailing zero bytes; nil when empty.
    static func cleaned(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{0}")))
        return trimmed.isEmpty ? nil : trimmed
    }
}
