#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import NIOConcurrencyHelpers
import Vapor

/// The web app's files kept in memory with their headers made once: every visit asks for the
/// shell, and streaming it from disk cost a thread-pool round trip and a new date formatter
/// (for `Last-Modified`) per request. A file is read again when its size or modification time
/// changes; files over `largest` bytes, and Range requests, are left to `FileMiddleware`.
///
/// Text files (scripts, styles, HTML, JSON, YAML, SVG) are also gzip-compressed once, when read,
/// and that copy goes to clients that accept gzip, with its own ETag (RFC 9110 §8.8.3: a validator
/// names one representation) and `Vary: Accept-Encoding`.
final class WebFileCache: Sendable {
    struct Representation: Sendable {
        var body: ByteBuffer
        var headers: HTTPHeaders
        var eTag: String
    }

    struct Entry: Sendable {
        var size: Int
        var modified: timespec
        var identity: Representation
        var gzip: Representation?
    }

    /// Extensions worth compressing; images and audio are compressed already.
    static let compressible: Set<String> = ["html", "js", "css", "json", "yaml", "yml", "svg", "webmanifest", "txt"]

    let directory: String
    let largest: Int
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    /// - Parameter directory: ends with `/`.
    init(directory: String, largest: Int = 4 << 20) {
        self.directory = directory
        self.largest = largest
    }

    /// The file at a request path (`/` and folders mean their `index.html`), or nil when there is
    /// no such file, the path leaves the web directory, or the file is too large to keep.
    func response(for path: String, request: Request) -> Response? {
        guard request.headers.first(name: .range) == nil, var relative = path.removingPercentEncoding,
              !relative.contains(".."), !relative.contains("\0") else { return nil }
        while relative.hasPrefix("/") { relative.removeFirst() }
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        let file = directory + relative
        var info = stat()
        guard stat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= largest else { return nil }
        guard let entry = entry(file, size: Int(info.st_size), modified: info.st_mtim) else { return nil }
        let chosen = entry.gzip.flatMap { Self.acceptsGzip(request.headers) ? $0 : nil } ?? entry.identity
        if let match = request.headers.first(name: .ifNoneMatch),
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == chosen.eTag }) {
            return Response(status: .notModified, headers: chosen.headers)
        }
        return Response(status: .ok, headers: chosen.headers, body: .init(buffer: chosen.body))
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

    private func entry(_ file: String, size: Int, modified: timespec) -> Entry? {
        if let entry = entries.withLockedValue({ $0[file] }), entry.size == size,
           entry.modified.tv_sec == modified.tv_sec, entry.modified.tv_nsec == modified.tv_nsec {
            return entry
        }
        guard let data = FileManager.default.contents(atPath: file), data.count == size else { return nil }
        let version = "\(modified.tv_sec)-\(modified.tv_nsec)-\(size)"
        var headers = HTTPHeaders()
        let ext = (file as NSString).pathExtension.lowercased()
        headers.contentType = HTTPMediaType.fileExtension(ext) ?? .binary
        headers.lastModified = HTTPHeaders.LastModified(Date(timeIntervalSince1970: TimeInterval(modified.tv_sec)))
        var gzip: Representation?
        if Self.compressible.contains(ext), size > 256, let packed = Gzip.compress(data), packed.count < size {
            headers.replaceOrAdd(name: .vary, value: "Accept-Encoding")
            var packedHeaders = headers
            packedHeaders.replaceOrAdd(name: .contentEncoding, value: "gzip")
            packedHeaders.replaceOrAdd(name: .eTag, value: "\"\(version)-gz\"")
            gzip = Representation(body: ByteBuffer(bytes: packed), headers: packedHeaders, eTag: "\"\(version)-gz\"")
        }
        headers.replaceOrAdd(name: .eTag, value: "\"\(version)\"")
        let identity = Representation(body: ByteBuffer(data: data), headers: headers, eTag: "\"\(version)\"")
        let entry = Entry(size: size, modified: modified, identity: identity, gzip: gzip)
        entries.withLockedValue { $0[file] = entry }
        return entry
    }
}
