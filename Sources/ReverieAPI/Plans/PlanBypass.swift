import Foundation

/// `PUT /api/plan/bypass`: the development-only switch that unlocks everything for this account.
public struct PlanBypass: Codable, Sendable, Equatable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
}
