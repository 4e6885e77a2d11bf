import Vapor

/// Serves the web app for everything outside the server's own namespaces (`/api/`, `/audio/`).
///
/// Routes answer first (`/openapi.yaml`); then files from the web directory, from memory
/// (`FileCache`, shared with the media routes), or through Vapor's `FileMiddleware` for files too
/// large to keep (path traversal refused by both); a path with no file extension that matches neither gets
/// `index.html`, so a reload on `/write` opens the app there. A missing asset stays a 404.
struct WebAppMiddleware: Middleware {
    let webDirectory: String
    private let files: FileMiddleware
    private let cache: FileCache
    /// Paths outside the server's namespaces that routes answer (`/openapi.yaml`): they come before files.
    private let routePaths: Set<String>

    init(webDirectory: String, routes: Routes, cache: FileCache) {
        routePaths = Set(routes.all.map { "/" + $0.path.map(\.description).joined(separator: "/") })
            .filter { path in !Self.serverPrefixes.contains { path.hasPrefix($0 + "/") } }
        let directory = webDirectory.hasSuffix("/") ? webDirectory : webDirectory + "/"
        self.webDirectory = directory
        self.files = FileMiddleware(publicDirectory: directory, defaultFile: "index.html")
        self.cache = cache
    }

    /// On the event loop: a web file kept in memory is answered without leaving it (an async
    /// middleware costs two thread hops per request); everything else goes on to `respondSlowly`.
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let path = request.url.path
        let serverOwned = Self.serverPrefixes.contains { path == $0 || path.hasPrefix($0 + "/") }
        guard !serverOwned, [.GET, .HEAD].contains(request.method) else {
            return next.respond(to: request)
        }
        if !routePaths.contains(path) {
            do {
                if let cached = try webFile(path, request: request) {
                    return request.eventLoop.makeSucceededFuture(Self.revalidated(cached))
                }
            } catch {
                return request.eventLoop.makeFailedFuture(error)
            }
        }
        return request.eventLoop.makeFutureWithTask { try await self.respondSlowly(to: request, path: path, next: next) }
    }

    /// The web directory's file at a request path (`/` and folders mean their `index.html`) from
    /// memory, read into it first when it is not there yet; nil when there is no such file, the
    /// path leaves the web directory, or the file is too large to keep.
    private func webFile(_ path: String, request: Request) throws -> Response? {
        guard var relative = path.removingPercentEncoding, !relative.contains(".."), !relative.contains("\0") else { return nil }
        while relative.hasPrefix("/") { relative.removeFirst() }
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        let file = webDirectory + relative
        if let response = try cache.response(file, request: request) { return response }
        return cache.load(file, limit: Self.largestKept) ? try cache.response(file, request: request) : nil
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
            if let cached = try webFile(path, request: request) {
                response = cached
            } else {
                do {
                    try clampRange(of: request, path: path)
                    response = try await files.respond(to: request, chainingTo: NotFound())
                } catch let error as any AbortError where error.status == .notFound && Self.isAppRoute(path) {
                    if let shell = try webFile("/", request: request) {
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
        try request.narrowRange(toFileOf: size)
    }

    /// Web files are read on the event loop, so only small ones are kept; larger ones stream.
    static let largestKept = 4 << 20

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
