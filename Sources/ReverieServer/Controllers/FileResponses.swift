import Foundation
import Vapor

extension Request {
    /// A file with Range support: 206 for a satisfiable single range, 416 (with the size) otherwise.
    func serveFile(path: String, type: String, name: String?) async throws -> Response {
        let req = self
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if req.headers.contains(name: .range) {
            let satisfiable: Bool = if let range = req.headers.range, range.unit == .bytes, range.ranges.count == 1 {
                switch range.ranges[0] {
                case let .start(value): value >= 0 && value < size
                case let .tail(value): value > 0
                case let .within(start, end): start >= 0 && start <= end && start < size
                }
            } else {
                false
            }
            guard satisfiable else {
                throw APIError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                               "The file has \(size) bytes; ask for one range inside it.",
                               headers: ["Content-Range": "bytes */\(size)"])
            }
        }
        let parts = type.split(separator: ";")[0].split(separator: "/")
        var media = HTTPMediaType(type: String(parts[0]), subType: String(parts[1]))
        if type.contains("charset=utf-8") { media.parameters["charset"] = "utf-8" }
        let response = try await req.fileio.asyncStreamFile(at: path, mediaType: media)
        if let name { response.headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"\(name)\"") }
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=86400")
        return response
    }
}
