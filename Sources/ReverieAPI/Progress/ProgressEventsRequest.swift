import Foundation

public struct ProgressEventsRequest: Codable, Sendable, Equatable {
    public var events: [ProgressEventInput]
    public init(events: [ProgressEventInput]) { self.events = events }
}
