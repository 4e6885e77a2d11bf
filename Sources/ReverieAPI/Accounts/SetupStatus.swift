import Foundation

/// `GET /api/setup`: whether this server still needs its owner account.
public struct SetupStatus: Codable, Sendable, Equatable {
    /// `true` until the first account exists.
    public var needsSetup: Bool
    public init(needsSetup: Bool) { self.needsSetup = needsSetup }
}
