import Foundation
import Vapor

extension Request {
    /// A file with Range support: 206 for a satisfiable single range, 416 (with the size) otherwise.
    /// A range that runs past the end is clamped to the file, as RFC 9110 §14.1.2 says: on a
    /// 13,836-byte file `bytes=100-20000` is bytes 100 to 13,835 and `bytes=-99999` the whole file.
    func serveFile(path: String, type: String, name: String?) async throws -> Response {
        let req = self
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if req.headers.contains(name: .range) {
            guard let clamped = Self.clamped(req.headers.range, size: size) else {
                throw APIError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                               "The file has \(size) bytes; ask for one range inside it.",
                               headers: ["Content-Range": "bytes */\(size)"])
            }
            req.headers.range = HTTPHeaders.Range(unit: .bytes, ranges: [clamped])
        }
        let parts = type.split(separator: ";")[0].split(separator: "/")
        var media = HTTPMediaType(type: String(parts[0]), subType: String(parts[1]))
        if type.contains("charset=utf-8") { media.parameters["charset"] = "utf-8" }
        let response = try await req.fileio.asyncStreamFile(at: path, mediaType: media)
        if let name { response.headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"\(name)\"") }
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=86400")
        return response
    }

    /// The one byte range to send, inside a file of `size` bytes; nil when none is satisfiable.
    static func clamped(_ range: HTTPHeaders.Range?, size: Int) -> HTTPHeaders.Range.Value? {
        guard let range, range.unit == .bytes, range.ranges.count == 1, size > 0 else { return nil }
        switch range.ranges[0] {
        case let .start(value):
            return value >= 0 && value < size ? .start(value: value) : nil
        case let .tail(value):
            return value > 0 ? .within(start: size - min(value, size), end: size - 1) : nil
        case let .within(start, end):
            return start >= 0 && start <= end && start < size ? .within(start: start, end: min(end, size - 1)) : nil
        }
    }
}
