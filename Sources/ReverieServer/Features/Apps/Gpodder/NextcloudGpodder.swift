import Feeds
import Foundation
import ReverieAPI
import Vapor

/// Nextcloud's gpoddersync app, which AntennaPod's "Nextcloud" sync option and Kasts speak: the
/// same subscriptions and episode actions under `/index.php/apps/gpoddersync/`, and Nextcloud's
/// Login Flow v2, by which the app gets a `gpodder` app password once the person approves it in
/// Reverie's own Settings → Apps (they sign in there as usual; the app never sees their password).
struct NextcloudGpodder: RouteCollection {
    let gpodder: GpodderController
    let apps: Store<any AppRepository>
    let passwords: AppPasswords
    let now: @Sendable () -> Date
    /// How long an app waits for the person to approve it (Nextcloud gives 20 minutes).
    static let flowLifetime: TimeInterval = 20 * 60
    /// Flows waiting at once, from one address and on the whole server: the start is open to anyone.
    static let waitingPerAddress = 5
    static let waitingFlows = 1_000

    func boot(routes: any RoutesBuilder) throws {
        let routes = routes.grouped(AppGate.SessionCookies())
        let login = routes.grouped("index.php", "login", "v2")
        login.on(.POST, takes: .file(limit: 1 << 10), use: startFlow)
        login.get("flow", ":token", use: openFlow)
        login.on(.POST, "poll", takes: .file(limit: 1 << 10), use: poll)
        let flows = routes.grouped("api", "apps", "login-flows")
        flows.get(":token", use: showFlow)
        flows.post(":token", use: approveFlow)
        let sync = routes.grouped("index.php", "apps", "gpoddersync")
        sync.get("subscriptions", use: subscriptions)
        sync.on(.POST, "subscription_change", "create", takes: .file(limit: GpodderController.maxBody), use: uploadSubscriptions)
        sync.get("episode_action", use: episodeActions)
        sync.on(.POST, "episode_action", "create", takes: .file(limit: GpodderController.maxBody), use: uploadEpisodeActions)
    }

    // MARK: - Login Flow v2

    /// `POST /index.php/login/v2`: `{"poll": {"token", "endpoint"}, "login"}`; the app opens
    /// `login` in a browser and polls `endpoint` with the token.
    func startFlow(req: Request) async throws -> Response {
        let loginToken = AppPasswords.token(), pollToken = AppPasswords.token()
        let agent = req.headers.first(name: .userAgent).map { String($0.prefix(100)) } ?? ""
        let name = agent.isEmpty ? "Podcast app" : agent
        guard try await apps.on(req).startLoginFlow(loginToken: loginToken, pollHash: TokenSecret.hash(pollToken), name: name,
                                                    address: gpodder.gate.front.clientAddress(of: req),
                                                    expiresAt: now().addingTimeInterval(Self.flowLifetime), now: now(),
                                                    perAddress: Self.waitingPerAddress, limit: Self.waitingFlows) else {
            throw APIError(.tooManyRequests, code: "too_many", "Too many apps are waiting to be approved; try again in a few minutes.",
                           headers: ["Retry-After": "60"])
        }
        let server = AppController.serverAddress(of: req)
        return try Response.json(["poll": ["token": pollToken, "endpoint": server + "/index.php/login/v2/poll"],
                                           "login": server + "/index.php/login/v2/flow/" + loginToken])
    }

    /// `GET /index.php/login/v2/flow/{token}`: to Settings, where the person (signed in first)
    /// approves the app.
    func openFlow(req: Request) async throws -> Response {
        let token = try req.parameters.require("token")
        guard Self.isToken(token) else { throw Abort(.notFound) }
        return req.redirect(to: "/settings?connect=" + token, redirectType: .normal)
    }

    /// `POST /index.php/login/v2/poll` (`token=…`, as a form): 404 until the person approves,
    /// then `{"server", "loginName", "appPassword"}`, once.
    func poll(req: Request) async throws -> Response {
        let body = req.body.data.map { String(buffer: $0) } ?? ""
        let token = URLComponents(string: "?" + body)?.queryItems?.first { $0.name == "token" }?.value
            ?? (try? req.query.get(String.self, at: "token")) ?? ""
        guard Self.isToken(token), let (username, sealed) = try await apps.on(req).collectLoginFlow(pollHash: TokenSecret.hash(token), now: now()),
              let secret = passwords.open(sealed) else {
            throw APIError(.notFound, code: "not_found", "Not approved yet: approve the app in Reverie's Settings → Apps.")
        }
        return try Response.json(["server": AppController.serverAddress(of: req), "loginName": username, "appPassword": secret])
    }

    /// `GET /api/apps/login-flows/{token}`: `{"name"}` of a flow waiting for approval.
    func showFlow(req: Request) async throws -> AppLoginFlow {
        _ = try req.user
        let token = try req.parameters.require("token")
        guard Self.isToken(token), let name = try await apps.on(req).waitingLoginFlow(loginToken: token, now: now()) else {
            throw APIError(.notFound, code: "not_found", "This request to connect an app has ended or was approved: start again in the app.")
        }
        return AppLoginFlow(name: name)
    }

    /// `POST /api/apps/login-flows/{token}`: approves it: a `gpodder` app password for the
    /// person, which the app collects by polling. 201 with the app.
    func approveFlow(req: Request) async throws -> Response {
        let user = try req.user
        let token = try req.parameters.require("token")
        let store = apps.on(req)
        guard Self.isToken(token), let name = try await store.waitingLoginFlow(loginToken: token, now: now()) else {
            throw APIError(.notFound, code: "not_found", "This request to connect an app has ended or was approved: start again in the app.")
        }
        guard try await store.apps(ownedBy: user).count < AppController.maximumApps else {
            throw APIError(.unprocessableEntity, code: "too_many", "You have \(AppController.maximumApps) apps connected: revoke one you no longer use first.")
        }
        let secret = AppPasswords.generate()
        let sealed = try passwords.seal(secret)
        // Sealed only in the flow, until the app collects it: a gpodder app is checked by its hash.
        let app = try await store.create(ownerID: user.id, kind: .gpodder, name: name, secretHash: TokenSecret.hash(secret),
                                         sealedSecret: "", prefix: AppPasswords.prefix(of: secret), client: nil)
        guard try await store.approveLoginFlow(loginToken: token, ownerID: user.id, sealedSecret: sealed, now: now()) else {
            _ = try await store.revoke(app.id, ownedBy: user)
            throw APIError(.notFound, code: "not_found", "This request to connect an app has ended or was approved: start again in the app.")
        }
        return try await app.info.encodeResponse(status: .created, for: req)
    }

    private static func isToken(_ text: String) -> Bool {
        (20...100).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    // MARK: - gpoddersync

    /// `GET /index.php/apps/gpoddersync/subscriptions?since=`: `{"add", "remove", "timestamp"}`.
    func subscriptions(req: Request) async throws -> Response {
        let signIn = try await gpodder.gate.signIn(req, kind: .gpodder, username: nil)
        let (added, removed, timestamp) = try await gpodder.changes(since: try GpodderController.since(req), signIn: signIn, req: req)
        await gpodder.gate.record(signIn, req, action: "read subscriptions")
        return try Response.json(["add": added, "remove": removed, "timestamp": timestamp])
    }

    /// `POST /index.php/apps/gpoddersync/subscription_change/create` `{"add", "remove"}`:
    /// `{"timestamp"}`.
    func uploadSubscriptions(req: Request) async throws -> Response {
        let signIn = try await gpodder.gate.signIn(req, kind: .gpodder, username: nil)
        _ = try await gpodder.upload(changesIn: req, signIn: signIn, device: Self.device(signIn))
        return try Response.json(["timestamp": GpodderController.timestamp(now: Date())])
    }

    /// `GET /index.php/apps/gpoddersync/episode_action?since=`: `{"actions", "timestamp"}`,
    /// each action named in capitals as Nextcloud's app gives them.
    func episodeActions(req: Request) async throws -> Response {
        let signIn = try await gpodder.gate.signIn(req, kind: .gpodder, username: nil)
        let since = try GpodderController.since(req)
        let timestamp = GpodderController.timestamp(now: Date())
        let actions = try await gpodder.log.since(since * 1000, user: signIn.authenticated, podcast: nil, device: nil)
        await gpodder.gate.record(signIn, req, action: "read \(actions.count) episode \(actions.count == 1 ? "action" : "actions")")
        return try Response.json(["actions": actions.map(Self.nextcloud), "timestamp": timestamp])
    }

    /// `POST /index.php/apps/gpoddersync/episode_action/create` (a list of actions): `{"timestamp"}`.
    func uploadEpisodeActions(req: Request) async throws -> Response {
        let signIn = try await gpodder.gate.signIn(req, kind: .gpodder, username: nil)
        _ = try await gpodder.receive(actionsIn: req, signIn: signIn, device: Self.device(signIn))
        return try Response.json(["timestamp": GpodderController.timestamp(now: Date())])
    }

    /// Nextcloud's app names no device: the app's own name stands for one.
    static func device(_ signIn: AppSignIn) -> String {
        let made = String(signIn.app.name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }.prefix(40))
        return GpodderSync.isDeviceID(made) ? made : "app"
    }

    /// An action as Nextcloud's app answers it: its name in capitals, -1 for seconds not known.
    static func nextcloud(_ action: GpodderSync.EpisodeAction) -> [String: Any] {
        var object = action.json
        object["action"] = action.action.rawValue.uppercased()
        object["guid"] = action.guid ?? NSNull()
        for key in ["started", "position", "total"] where object[key] == nil { object[key] = -1 }
        return object
    }
}

/// `GET /api/apps/login-flows/{token}` answer.
struct AppLoginFlow: Content {
    /// What the app calls itself (its User-Agent).
    var name: String
}
