import Foundation
import MediaFormats
import Vapor

extension Response {
    /// Something made for the person to save (an export): `name` is what the browser calls the
    /// file (`filename*` carries it whole in UTF-8; `filename` an ASCII stand-in).
    static func download(_ body: Response.Body, type: HTTPMediaType, name: String) -> Response {
        let response = Response(status: .ok, body: body)
        response.headers.contentType = type
        response.markAsDownload(named: name)
        return response
    }

    /// Asks the browser to save the answer as `name` (`filename*` carries it whole in UTF-8;
    /// `filename` an ASCII stand-in).
    func markAsDownload(named name: String) {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_"))) ?? ascii
        headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)")
    }
}

/// Media on disk as requests meet it: files answered with Range from memory (`FileCache`) or
/// from disk, and uploads streamed to scratch files. Made once in `configure`; a feature that
/// serves or receives files is given it.
struct MediaFiles: Sendable {
    let cache: FileCache
    let threadPool: NIOThreadPool
    /// Where uploads wait, `<data>/media/.incoming`.
    let incomingDirectory: URL
    /// The data directory, whose files a front sends itself.
    var dataDirectory: String = ""
    var front = FrontSettings()

    /// A file with Range support: 206 for a satisfiable single range, 416 (with the size) otherwise.
    /// A range that runs past the end is clamped to the file, as RFC 9110 §14.1.2 says: on a
    /// 13,836-byte file `bytes=100-20000` is bytes 100 to 13,835 and `bytes=-99999` the whole file.
    ///
    /// From memory when the file is kept or fits, read into it on the thread pool first; a file
    /// too large to keep streams from disk.
    func serve(_ path: String, type: String, name: String?, for request: Request) async throws -> Response {
        if front.isFront(request), FileManager.default.fileExists(atPath: path) {
            // The front sends the bytes, with Range, from the data directory: at a signed address
            // the player goes on reading from alone (a redirect, never kept), or handed over.
            if let signed = front.signedAddress(of: path, type: type, dataDirectory: dataDirectory, now: Date()) {
                let response = Response(status: .temporaryRedirect)
                response.headers.replaceOrAdd(name: .location, value: signed)
                response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
                return response
            }
        }
        if front.isFront(request), let handOver = FrontSettings.internalPath(of: path, dataDirectory: dataDirectory),
           FileManager.default.fileExists(atPath: path) {
            let response = Response(status: .ok)
            response.headers.contentType = Request.mediaType(type)
            response.headers.replaceOrAdd(name: "X-Accel-Redirect", value: handOver)
            return Request.decorated(response, name: name)
        }
        if let response = try kept(path, type: type, name: name, for: request) { return response }
        let files = cache
        if try await threadPool.runIfActive({ files.load(path) }), let response = try kept(path, type: type, name: name, for: request) {
            return response
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        try request.narrowRange(toFileOf: size)
        let response = try await request.fileio.asyncStreamFile(at: path, mediaType: Request.mediaType(type))
        return Request.decorated(response, name: name)
    }

    /// `serve` when the file is kept in memory, on the event loop; nil when it is not.
    func kept(_ path: String, type: String, name: String?, for request: Request) throws -> Response? {
        try cache.response(path, request: request, type: Request.mediaType(type)).map { Request.decorated($0, name: name) }
    }
}

extension Request {
    fileprivate static func mediaType(_ type: String) -> HTTPMediaType {
        let parts = type.split(separator: ";")[0].split(separator: "/")
        var media = HTTPMediaType(type: String(parts[0]), subType: String(parts[1]))
        if type.contains("charset=utf-8") { media.parameters["charset"] = "utf-8" }
        return media
    }

    fileprivate static func decorated(_ response: Response, name: String?) -> Response {
        if let name { response.headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"\(name)\"") }
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=86400")
        return response
    }

    /// Before streaming a file of `size` bytes from disk: a `Range` is narrowed to the one range
    /// it asks for inside the file, dropped when it is not one Reverie answers (the whole file
    /// goes), or refused with 416 and the size when nothing it asks for is in the file.
    func narrowRange(toFileOf size: Int) throws {
        guard let header = headers.first(name: .range) else { return }
        switch Self.byteRange(header, size: size) {
        case .whole: headers.remove(name: .range)
        case .unsatisfiable: throw Self.rangeNotSatisfiable(size: size)
        case .part(let range):
            headers.range = HTTPHeaders.Range(unit: .bytes, ranges: [.within(start: range.lowerBound, end: range.upperBound)])
        }
    }

    static func rangeNotSatisfiable(size: Int) -> APIError {
        APIError(.rangeNotSatisfiable, code: "range_not_satisfiable", "The file has \(size) bytes; ask for one range inside it.",
                 headers: ["Content-Range": "bytes */\(size)"])
    }

    /// What a `Range` header asks of a file (`RangeHeader`, in MediaFormats, where it is fuzzed).
    typealias ByteRange = RangeHeader.Answer

    /// What a `Range` header asks of a file of `size` bytes.
    static func byteRange(_ header: String, size: Int) -> ByteRange {
        RangeHeader.read(header, size: size)
    }
}
