import Foundation

/// `PUT /api/users/{userID}/plan`: the owner grants Plus, or takes it back.
public struct PlanGrant: Codable, Sendable, Equatable {
    public var plan: Plan
    public init(plan: Plan) { self.plan = plan }
}
