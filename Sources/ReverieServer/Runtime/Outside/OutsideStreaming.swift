import Foundation
import Vapor

extension GuardedHTTPClient {
    /// Audio from an outside address streamed through the client to the person, the request's
    /// Range passed on (so it seeks), each chunk fetched only when the last was sent: a LibriVox
    /// section or a podcast episode played before (or instead of) being downloaded; at most
    /// `maxBytes`.
    func relay(_ url: URL, for request: Request, maxBytes: Int) async throws -> Response {
        let upstream = try await stream(url, range: request.headers.first(name: .range), maxBytes: maxBytes)
        var headers = HTTPHeaders()
        let type = upstream.headers.first(name: .contentType) ?? ""
        headers.replaceOrAdd(name: .contentType, value: type.hasPrefix("audio/") ? type : "audio/mpeg")
        for name in [HTTPHeaders.Name.contentRange, .acceptRanges] {
            if let value = upstream.headers.first(name: name) { headers.replaceOrAdd(name: name, value: value) }
        }
        headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=3600")
        let length = upstream.headers.first(name: .contentLength).flatMap(Int.init) ?? -1
        let body = upstream.body
        return Response(status: HTTPResponseStatus(statusCode: upstream.status), headers: headers, body: .init(asyncStream: { writer in
            do {
                while let chunk = try await body.next() { try await writer.write(.buffer(chunk)) }
                try await writer.write(.end)
            } catch {
                await body.cancel()
                try? await writer.write(.error(error))
            }
        }, count: length))
    }
}
