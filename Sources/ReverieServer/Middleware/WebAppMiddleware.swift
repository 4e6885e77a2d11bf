import Vapor

/// Serves the web app for everything outside the server's own namespaces (`/api/`, `/audio/`).
///
/// Routes answer first (`/openapi.yaml`); then files from the web directory, from memory
/// (`WebFileCache`), or through Vapor's `FileMiddleware` for Range requests and large files
/// (path traversal refused by both); a path with no file extension that matches neither gets
/// `index.html`, so a reload on `/write` opens the app there. A missing asset stays a 404.
struct WebAppMiddleware: Middleware {
    let webDirectory: String
    private let files: FileMiddleware
    private let cache: WebFileCache
    /// Paths outside the server's namespaces that routes answer (`/openapi.yaml`): they come before files.
    private let routePaths: Set<String>

    init(webDirectory: String, routes: Routes) {
        routePaths = Set(routes.all.map { "/" + $0.path.map(\.description).joined(separator: "/") })
            .filter { path in !Self.serverPrefixes.contains { path.hasPrefix($0 + "/") } }
        let directory = webDirectory.hasSuffix("/") ? webDirectory : webDirectory + "/"
        self.webDirectory = directory
        self.files = FileMiddleware(publicDirectory: directory, defaultFile: "index.html")
        self.cache = WebFileCache(directory: directory)
    }

    /// On the event loop: a web file kept in memory is answered without leaving it (an async
    /// middleware costs two thread hops per request); everything else goes on to `respondSlowly`.
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let path = request.url.path
        let serverOwned = Self.serverPrefixes.contains { path == $0 || path.hasPrefix($0 + "/") }
        guard !serverOwned, [.GET, .HEAD].contains(request.method) else {
            return next.respond(to: request)
        }
        if !routePaths.contains(path), let cached = cache.response(for: path, request: request) {
            return request.eventLoop.makeSucceededFuture(Self.revalidated(cached))
        }
        return request.eventLoop.makeFutureWithTask { try await self.respondSlowly(to: request, path: path, next: next) }
    }

    /// The service worker keeps the offline copy; the network copy is always revalidated.
    private static func revalidated(_ response: Response) -> Response {
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        return response
    }

    private func respondSlowly(to request: Request, path: String, next: any Responder) async throws -> Response {
        let response: Response
        do {
            response = try await next.respond(to: request).get()
        } catch let error as any AbortError where error.status == .notFound {
            if let cached = cache.response(for: path, request: request) {
                response = cached
            } else {
                do {
                    try clampRange(of: request, path: path)
                    response = try await files.respond(to: request, chainingTo: NotFound())
                } catch let error as any AbortError where error.status == .notFound && Self.isAppRoute(path) {
                    if let shell = cache.response(for: "/", request: request) {
                        response = shell
                    } else {
                        response = try await request.fileio.asyncStreamFile(at: webDirectory + "index.html")
                    }
                }
            }
        }
        return Self.revalidated(response)
    }

    /// A range past the end of a web file is clamped to it (RFC 9110 §14.1.2), as for audio;
    /// FileMiddleware would answer 400. Paths with `..` are left to FileMiddleware, which refuses them.
    private func clampRange(of request: Request, path: String) throws {
        guard request.headers.contains(name: .range), let decoded = path.removingPercentEncoding, !decoded.contains(".."),
              let size = (try? FileManager.default.attributesOfItem(atPath: webDirectory + decoded.drop { $0 == "/" })[.size]) as? Int
        else { return }
        guard let range = Request.clamped(request.headers.range, size: size) else {
            throw APIError(.rangeNotSatisfiable, code: "range_not_satisfiable", "The file has \(size) bytes; ask for one range inside it.",
                           headers: ["Content-Range": "bytes */\(size)"])
        }
        request.headers.range = HTTPHeaders.Range(unit: .bytes, ranges: [range])
    }

    /// Paths the server answers itself, with JSON errors; never the web app.
    static let serverPrefixes = ["/api", "/audio"]

    private struct NotFound: AsyncResponder {
        func respond(to request: Request) async throws -> Response { throw Abort(.notFound) }
    }

    /// `/write`, `/settings/tokens`: app locations, not files.
    static func isAppRoute(_ path: String) -> Bool {
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return !last.contains(".")
    }
}
