#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import NIOConcurrencyHelpers
import Vapor

/// Files the server sends again and again kept in memory, with their headers made once: the web
/// app's files, and the audio, captions and timelines the players fetch a range at a time.
///
/// From memory, a request is answered on its event loop with a slice of the kept bytes: no open,
/// no read, no thread-pool round trip, no date formatter. Each answer checks the file's size,
/// modification time and inode first (one `stat`), so a file changed or replaced on disk is read
/// again. Files over `largest` bytes are not kept, and when the kept files pass `budget` bytes
/// the least recently used go; callers stream those from disk instead.
///
/// Range requests (one range; `If-Range` honoured) get 206 with a slice, or 416 with the size.
/// Text files (scripts, styles, HTML, JSON, YAML, SVG, captions) are also gzip-compressed once,
/// when read, and that copy goes to clients that accept gzip, with its own ETag (RFC 9110 §8.8.3:
/// a validator names one representation) and `Vary: Accept-Encoding`.
final class FileCache: Sendable {
    struct Representation: Sendable {
        var body: ByteBuffer
        var headers: HTTPHeaders
        var eTag: String
    }

    struct Entry: Sendable {
        var size: Int
        var modified: timespec
        var inode: UInt
        var identity: Representation
        var gzip: Representation?
        var lastUsed: UInt64

        var bytes: Int { identity.body.readableBytes + (gzip?.body.readableBytes ?? 0) }

        func matches(_ info: stat) -> Bool {
            size == Int(info.st_size) && inode == UInt(info.st_ino)
                && modified.tv_sec == info.st_mtim.tv_sec && modified.tv_nsec == info.st_mtim.tv_nsec
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// Extensions worth compressing; images and audio are compressed already.
    static let compressible: Set<String> = ["html", "js", "css", "json", "yaml", "yml", "svg", "webmanifest", "txt", "vtt"]

    /// The largest file kept.
    let largest: Int
    /// The most bytes kept, all files together.
    let budget: Int
    private let state = NIOLockedValueBox(State())

    init(largest: Int, budget: Int) {
        self.largest = min(largest, budget)
        self.budget = budget
    }

    /// How many bytes are kept now.
    var bytes: Int { state.withLockedValue { $0.bytes } }

    /// The answer for the regular file at `file` from memory, or nil when it is not kept (or has
    /// changed since): `load(_:)` it, or stream it. `type` replaces the type its extension gives.
    /// Throws a 416 `APIError` for a range outside the file.
    func response(_ file: String, request: Request, type: HTTPMediaType? = nil) throws -> Response? {
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let entry: Entry? = state.withLockedValue { state in
            guard let entry = state.entries[file], entry.matches(info) else { return nil }
            state.clock += 1
            state.entries[file]?.lastUsed = state.clock
            return entry
        }
        guard let entry else { return nil }
        return try Self.answer(entry, request: request, type: type)
    }

    /// Reads `file` into memory when it fits (in `largest` and in `limit`); false when it does
    /// not, or cannot be read. This blocks: on an event loop only with a small `limit` (the web
    /// app's files); otherwise on a thread pool.
    @discardableResult
    func load(_ file: String, limit: Int = .max) -> Bool {
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= min(largest, limit) else { return false }
        if state.withLockedValue({ $0.entries[file]?.matches(info) ?? false }) { return true }
        guard let data = FileManager.default.contents(atPath: file), data.count == Int(info.st_size) else { return false }
        var entry = Self.entry(file, data: data, info: info)
        state.withLockedValue { state in
            if let old = state.entries.removeValue(forKey: file) { state.bytes -= old.bytes }
            while state.bytes + entry.bytes > budget, let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.bytes
            }
            state.clock += 1
            entry.lastUsed = state.clock
            state.entries[file] = entry
            state.bytes += entry.bytes
        }
        return true
    }

    /// Drops a file that was deleted, so its bytes do not wait for eviction.
    func forget(_ file: String) {
        state.withLockedValue { state in
            if let old = state.entries.removeValue(forKey: file) { state.bytes -= old.bytes }
        }
    }

    /// Whether `Accept-Encoding` lists gzip without `q=0`.
    static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        headers[.acceptEncoding].flatMap { $0.split(separator: ",") }.contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "x-gzip" else { return false }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }

    private static func answer(_ entry: Entry, request: Request, type: HTTPMediaType?) throws -> Response {
        let headers = request.headers
        // A Range applies to the file as it is (RFC 9110 §14.2); `If-Range` with another
        // validator asks for the whole file instead, as does a Range not to answer (malformed,
        // another unit, several ranges). A start past the end is 416.
        var part: ClosedRange<Int>?
        if let header = headers.first(name: .range), headers.first(name: "If-Range").map({ $0 == entry.identity.eTag }) ?? true {
            switch Request.byteRange(header, size: entry.size) {
            case .part(let range): part = range
            case .unsatisfiable: throw Request.rangeNotSatisfiable(size: entry.size)
            case .whole: part = nil
            }
        }
        let chosen = part != nil ? entry.identity : entry.gzip.flatMap { acceptsGzip(headers) ? $0 : nil } ?? entry.identity
        var responseHeaders = chosen.headers
        if let type { responseHeaders.contentType = type }
        if let match = headers.first(name: .ifNoneMatch),
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == chosen.eTag }) {
            return Response(status: .notModified, headers: responseHeaders)
        }
        guard let range = part else { return Response(status: .ok, headers: responseHeaders, body: .init(buffer: chosen.body)) }
        let (first, last) = (range.lowerBound, range.upperBound)
        responseHeaders.replaceOrAdd(name: .contentRange, value: "bytes \(first)-\(last)/\(entry.size)")
        let slice = chosen.body.getSlice(at: chosen.body.readerIndex + first, length: last - first + 1) ?? ByteBuffer()
        return Response(status: .partialContent, headers: responseHeaders, body: .init(buffer: slice))
    }

    private static func entry(_ file: String, data: Data, info: stat) -> Entry {
        let modified = info.st_mtim
        let size = data.count
        let version = "\(modified.tv_sec)-\(modified.tv_nsec)-\(size)"
        var headers = HTTPHeaders()
        let ext = (file as NSString).pathExtension.lowercased()
        headers.contentType = HTTPMediaType.fileExtension(ext) ?? .binary
        headers.lastModified = HTTPHeaders.LastModified(Date(timeIntervalSince1970: TimeInterval(modified.tv_sec)))
        headers.replaceOrAdd(name: .acceptRanges, value: "bytes")
        var gzip: Representation?
        if compressible.contains(ext), size > 256, let packed = Gzip.compress(data), packed.count < size {
            headers.replaceOrAdd(name: .vary, value: "Accept-Encoding")
            var packedHeaders = headers
            packedHeaders.replaceOrAdd(name: .contentEncoding, value: "gzip")
            packedHeaders.replaceOrAdd(name: .eTag, value: "\"\(version)-gz\"")
            gzip = Representation(body: ByteBuffer(bytes: packed), headers: packedHeaders, eTag: "\"\(version)-gz\"")
        }
        headers.replaceOrAdd(name: .eTag, value: "\"\(version)\"")
        let identity = Representation(body: ByteBuffer(data: data), headers: headers, eTag: "\"\(version)\"")
        return Entry(size: size, modified: modified, inode: UInt(info.st_ino), identity: identity, gzip: gzip, lastUsed: 0)
    }
}
