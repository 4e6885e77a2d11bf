import Foundation

/// `GET /api/bedside/greeting`: the words of the wake greeting for now, to be spoken.
public struct WakeGreetingInfo: Codable, Sendable, Equatable {
    public var text: String

    public init(text: String) {
        self.text = text
    }
}
