import Foundation

/// The answer to `POST /api/progress/events`: how many events were new, and each item's place now.
public struct ProgressEventsResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var items: [ItemProgress]
    public init(accepted: Int, items: [ItemProgress]) { (self.accepted, self.items) = (accepted, items) }
}
