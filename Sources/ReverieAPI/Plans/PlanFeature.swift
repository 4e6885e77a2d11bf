import Foundation

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
