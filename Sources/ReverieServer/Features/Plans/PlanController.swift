import ReverieAPI
import Vapor

extension PlanInfo: Content {}

/// Plans: Free or Plus for each account, granted by the owner (nobody pays on a self-hosted
/// server), and the development-only "Bypass IAP (Dev)" switch.
struct PlanController: RouteCollection {
    let users: Store<any UserRepository>
    /// `REVERIE_ENV=development`: Bypass IAP (Dev) is offered.
    let developmentMode: Bool

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "plan", use: show)
        routes.put("api", "plan", "bypass", use: bypass)
        routes.put("api", "users", ":userID", "plan", use: grant)
    }

    func show(req: Request) async throws -> PlanInfo {
        try await info(for: req.user, req)
    }

    /// `PUT /api/plan/bypass`: only while the server runs with `REVERIE_ENV=development`.
    func bypass(req: Request) async throws -> PlanInfo {
        let user = try req.user
        let body = try req.content.decode(PlanBypass.self)
        guard developmentMode else {
            throw APIError(.forbidden, code: "development_only",
                           "Bypass IAP is for development: this server runs in production mode (start it with REVERIE_ENV=development to offer it).")
        }
        guard let row = try await users.on(req).setPlan(of: user.id, plan: nil, bypass: body.enabled) else { throw APIError.notFound("user") }
        var updated = user
        updated.planBypass = row.planBypass
        return try await info(for: updated, req)
    }

    /// `PUT /api/users/{userID}/plan`: the owner grants Plus, or takes it back.
    func grant(req: Request) async throws -> UserInfo {
        try req.owner("grants Plus")
        let id = try req.uuidParameter("userID", naming: "user")
        let body = try req.content.decode(PlanGrant.self)
        guard let row = try await users.on(req).setPlan(of: id, plan: body.plan.rawValue, bypass: nil) else {
            throw APIError.notFound("user")
        }
        return row.info()
    }

    private func info(for user: AuthenticatedUser, _ req: Request) async throws -> PlanInfo {
                let effective = Entitlements.effectivePlan(of: user, developmentMode: developmentMode)
        let owner = try await users.on(req).owner()?.username ?? "the owner"
        return PlanInfo(plan: user.plan, effective: effective, bypass: user.planBypass, developmentMode: developmentMode,
                        ownerName: owner, features: Entitlements.features(for: effective))
    }
}

/// What Plus unlocks, and the check every gated route makes.
struct Entitlements: Sendable {
    /// `REVERIE_ENV=development`: an account's bypass switch counts.
    let developmentMode: Bool

    /// Plus when the owner granted it, or when the bypass switch is on in development mode.
    static func effectivePlan(of user: AuthenticatedUser, developmentMode: Bool) -> Plan {
        user.plan == .plus || (developmentMode && user.planBypass) ? .plus : .free
    }

    /// The paywall card's list, for an account with `plan`.
    static func features(for plan: Plan) -> [PlanFeature] {
        let unlocked = plan == .plus ? "included" : "locked"
        return [
            PlanFeature(id: "themes", name: "Premium themes", detail: "Velvet Hour and Paper Moon, beside the four free themes.", status: unlocked),
            PlanFeature(id: "icons", name: "App icons", detail: "Lavender and Sunrise icons for new installs.", status: unlocked),
            PlanFeature(id: "rhymeFallback", name: "Advanced rhymes", detail: "An online rhyme dictionary for words the offline one does not know.", status: "coming"),
            PlanFeature(id: "aiCowriter", name: "AI co-writer", detail: "Line ideas in your song's style and scheme.", status: "coming"),
            PlanFeature(id: "musicIntegrations", name: "Music integrations", detail: "Tracks from streaming services beside your own files.", status: "coming"),
        ]
    }

    /// Whether the request's account has Plus now.
    func hasPlus(_ req: Request) throws -> Bool {
        Self.effectivePlan(of: try req.user, developmentMode: developmentMode) == .plus
    }

    /// Throws 403 `plus_required` unless the account has Plus.
    func requirePlus(_ req: Request, for feature: String) throws {
        guard try hasPlus(req) else {
            throw APIError(.forbidden, code: "plus_required",
                           "\(feature) come with Plus. On this server the owner grants Plus: ask them, or see Settings → Plan.")
        }
    }
}
