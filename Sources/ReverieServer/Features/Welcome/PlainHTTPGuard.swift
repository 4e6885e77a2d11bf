import Vapor

/// While HTTPS runs, plain HTTP is for this machine (where it is already a secure context) and for
/// the welcome page, which is how a phone gets the certificate before it trusts it. Another
/// device asking anything else over plain HTTP is sent to the welcome page (a page) or told the
/// HTTPS address (the API), so no password crosses the network in the clear.
struct PlainHTTPGuard: Middleware {
    let registry: HTTPSRegistry

    /// What the welcome page needs over plain HTTP.
    static let open = ["/welcome", "/welcome.js", "/welcome.css", "/icons"]

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        guard let service = registry.service, !request.cameOverTLS,
              let peer = request.remoteAddress?.ipAddress, !TLSSettings.isLoopback(peer) else {
            return next.respond(to: request)
        }
        let path = request.url.path
        if Self.open.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { return next.respond(to: request) }
        if [.GET, .HEAD].contains(request.method), !path.hasPrefix("/api/") {
            return request.eventLoop.makeSucceededFuture(request.redirect(to: "/welcome", redirectType: .normal))
        }
        let host = (request.headers.first(name: .host) ?? "").split(separator: ":").first.map(String.init) ?? ""
        let address = service.port.map { "https://\(host.isEmpty ? "this server" : host):\($0)/" } ?? "its HTTPS address"
        return request.eventLoop.makeFailedFuture(APIError(.forbidden, code: "https_required",
            "This server answers other devices over HTTPS only: open \(address), or /welcome to set this device up."))
    }
}
