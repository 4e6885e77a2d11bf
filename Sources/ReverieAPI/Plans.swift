import Foundation

/// What an account may use: Free, or Plus (premium themes and icons, and the paid features as
/// they come). This server is self-hosted, so nobody pays: the owner grants Plus.
public enum Plan: String, Codable, Sendable, CaseIterable {
    case free
    case plus
}

/// The app icons a person can pick for new installs: the manifest icon and the favicon.
public enum AppIcon: String, Codable, Sendable, CaseIterable {
    /// The crescent on the night sky. Free.
    case classic = "Classic"
    /// Lavender crescent on Catppuccin's base. Plus.
    case lavender = "Lavender"
    /// A warm sun low over dark water. Plus.
    case sunrise = "Sunrise"

    public var isPremium: Bool { self != .classic }
}

/// One line of the paywall card's feature list.
public struct PlanFeature: Codable, Sendable, Equatable {
    /// `themes`, `icons`, `rhymeFallback`, `aiCowriter` or `musicIntegrations`.
    public var id: String
    public var name: String
    public var detail: String
    /// `included` (this account has it), `locked` (Plus has it) or `coming` (not built yet: no
    /// account has it, and nothing pretends to).
    public var status: String

    public init(id: String, name: String, detail: String, status: String) {
        self.id = id
        self.name = name
        self.detail = detail
        self.status = status
    }
}

/// `GET /api/plan`: the signed-in person's plan and what it unlocks.
public struct PlanInfo: Codable, Sendable, Equatable {
    /// What the owner granted.
    public var plan: Plan
    /// What applies now: `plus` when granted, or when the development bypass is on and the server
    /// runs in development mode.
    public var effective: Plan
    /// The account's "Bypass IAP (Dev)" switch; it counts only in development mode.
    public var bypass: Bool
    /// The server runs with `REVERIE_ENV=development`, so the bypass switch is offered.
    public var developmentMode: Bool
    /// Who grants Plus on this server.
    public var ownerName: String
    public var features: [PlanFeature]

    public init(plan: Plan, effective: Plan, bypass: Bool, developmentMode: Bool, ownerName: String, features: [PlanFeature]) {
        self.plan = plan
        self.effective = effective
        self.bypass = bypass
        self.developmentMode = developmentMode
        self.ownerName = ownerName
        self.features = features
    }
}

/// `PUT /api/users/{userID}/plan`: the owner grants Plus, or takes it back.
public struct PlanGrant: Codable, Sendable, Equatable {
    public var plan: Plan
    public init(plan: Plan) { self.plan = plan }
}

/// `PUT /api/plan/bypass`: the development-only switch that unlocks everything for this account.
public struct PlanBypass: Codable, Sendable, Equatable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
}
