import Vapor

/// Headers that keep the app's pages and answers from being framed, sniffed or leaking referrers.
/// On the event loop (not `AsyncMiddleware`): it wraps every request, and an async middleware
/// costs two thread hops each.
struct SecurityHeadersMiddleware: Middleware {
    static let contentSecurityPolicy = [
        "default-src 'self'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob:",
        "style-src 'self'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ].joined(separator: "; ")

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).map { response in
            response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
            response.headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
            response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
            // A page that needs more (the welcome page asks the HTTPS address whether it is trusted)
            // sets its own, from this one.
            if !response.headers.contains(name: "Content-Security-Policy") {
                response.headers.add(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
            }
            return response
        }
    }
}
