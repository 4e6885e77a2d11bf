import Foundation

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
