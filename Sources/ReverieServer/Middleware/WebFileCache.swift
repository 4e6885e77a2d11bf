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
final class WebFileCache: Sendable {
    struct Entry: Sendable {
        var size: Int
        var modified: timespec
        var body: ByteBuffer
        var headers: HTTPHeaders
        var eTag: String
    }

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
        if let match = request.headers.first(name: .ifNoneMatch), match == entry.eTag {
            return Response(status: .notModified, headers: entry.headers)
        }
        return Response(status: .ok, headers: entry.headers, body: .init(buffer: entry.body))
    }

    private func entry(_ file: String, size: Int, modified: timespec) -> Entry? {
        if let entry = entries.withLockedValue({ $0[file] }), entry.size == size,
           entry.modified.tv_sec == modified.tv_sec, entry.modified.tv_nsec == modified.tv_nsec {
            return entry
        }
        guard let data = FileManager.default.contents(atPath: file), data.count == size else { return nil }
        let eTag = "\"\(modified.tv_sec)-\(modified.tv_nsec)-\(size)\""
        var headers = HTTPHeaders()
        let ext = (file as NSString).pathExtension
        headers.contentType = HTTPMediaType.fileExtension(ext) ?? .binary
        headers.replaceOrAdd(name: .eTag, value: eTag)
        headers.lastModified = HTTPHeaders.LastModified(Date(timeIntervalSince1970: TimeInterval(modified.tv_sec)))
        let entry = Entry(size: size, modified: modified, body: ByteBuffer(data: data), headers: headers, eTag: eTag)
        entries.withLockedValue { $0[file] = entry }
        return entry
    }
}
