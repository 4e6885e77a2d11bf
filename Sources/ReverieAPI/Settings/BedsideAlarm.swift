import Foundation

/// The Bedside alarm: a time of day, on or off, and the weekdays it repeats on (0 = Sunday; none: once).
public struct BedsideAlarm: Codable, Sendable, Equatable {
    /// `HH:MM`, 24-hour.
    public var time: String
    public var enabled: Bool
    public var days: [Int]

    public init(time: String, enabled: Bool, days: [Int]) {
        self.time = time
        self.enabled = enabled
        self.days = days
    }
}
