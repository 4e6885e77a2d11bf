import Foundation
import ReverieAPI
import Vapor

extension AppInfo: Content {}
extension CreatedApp: Content {}

/// Settings → Apps: `POST /api/apps` makes an app password for one protocol (shown once),
/// `GET /api/apps` lists the person's apps with what each last did, `DELETE /api/apps/{id}`
/// revokes one at once, on every server.
struct AppController: RouteCollection {
    let apps: Store<any AppRepository>
    let passwords: AppPasswords
    /// The protocols this server answers: an app password is only made for one of them.
    let served: Set<AppKind>
    static let maximumNameLength = 100
    /// Enough for every device in a household; a runaway script is told to stop.
    static let maximumApps = 100

    func boot(routes: any RoutesBuilder) throws {
        let apps = routes.grouped("api", "apps")
        apps.get(use: list)
        apps.post(use: create)
        apps.delete(":appID", use: revoke)
    }

    func list(req: Request) async throws -> [AppInfo] {
        try await apps.on(req).apps(ownedBy: req.user).map(\.info)
    }

    func create(req: Request) async throws -> Response {
        let user = try req.user
        let body = try req.content.decode(AppCreateRequest.self)
        guard let kind = AppKind(rawValue: body.kind) else {
            throw APIError(.badRequest, code: "invalid_field", "kind: one of gpodder, subsonic or wallabag.")
        }
        guard served.contains(kind) else {
            throw APIError(.unprocessableEntity, code: "not_served", "This server does not answer \(kind.rawValue) apps yet.")
        }
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= Self.maximumNameLength else {
            throw APIError(.badRequest, code: "invalid_name", "Give the app a name of 1 to \(Self.maximumNameLength) characters, so you know it later.")
        }
        let store = apps.on(req)
        guard try await store.apps(ownedBy: user).count < Self.maximumApps else {
            throw APIError(.unprocessableEntity, code: "too_many", "You have \(Self.maximumApps) apps connected: revoke one you no longer use first.")
        }
        let secret = AppPasswords.generate()
        // wallabag's apps sign in as an OAuth client too: its id and secret, shown once with the password.
        let client = kind == .wallabag ? (id: "rvr-" + AppPasswords.token().prefix(20).lowercased(), secret: AppPasswords.token()) : nil
        let app = try await store.create(ownerID: user.id, kind: kind, name: name, secretHash: TokenSecret.hash(secret),
                                         // Only Subsonic's token sign-in needs the password itself; the others
                                         // are checked by its hash, so a backup holds nothing to read.
                                         sealedSecret: kind == .subsonic ? try passwords.seal(secret) : "", prefix: AppPasswords.prefix(of: secret),
                                         client: client.map { ($0.id, TokenSecret.hash($0.secret)) })
        let server = Self.serverAddress(of: req)
        let qr = try? await QRCode.svg(for: server)
        return try await CreatedApp(id: app.id, secret: secret, app: app.info, username: user.username, server: server, qr: qr ?? nil,
                                    clientId: client?.id, clientSecret: client?.secret)
            .encodeResponse(status: .created, for: req)
    }

    func revoke(req: Request) async throws -> HTTPStatus {
        let id = try req.uuidParameter("appID", naming: "app")
        guard try await apps.on(req).revoke(id, ownedBy: req.user) else { throw APIError.notFound("app") }
        return .noContent
    }

    /// The address the person's browser reached the server by (its `Origin`), which their phone's
    /// app uses too; else the request's `Host`, over HTTPS when the front says so.
    static func serverAddress(of req: Request) -> String {
        if let origin = req.headers.first(name: .origin), let url = URL(string: origin), let scheme = url.scheme?.lowercased(),
           ["http", "https"].contains(scheme), url.host != nil, url.path.isEmpty || url.path == "/" {
            return origin.hasSuffix("/") ? String(origin.dropLast()) : origin
        }
        let host = req.headers.first(name: .host) ?? "127.0.0.1"
        let https = req.cameOverTLS || req.headers.first(name: "X-Forwarded-Proto")?.lowercased() == "https"
        return (https ? "https://" : "http://") + host
    }
}
