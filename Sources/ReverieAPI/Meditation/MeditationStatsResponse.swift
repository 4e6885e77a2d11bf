import Foundation

/// `GET /api/meditation-sessions/stats`: the seed's `totalSessions` and `totalMinutes`, with
/// streaks and this week's minutes counted in the time zone the client sends.
public struct MeditationStatsResponse: Codable, Sendable, Equatable {
    public var totalSessions: Int
    public var totalMinutes: Int
    public var currentStreak: Int
    public var longestStreak: Int
    public var minutesThisWeek: Int
    /// The time zone the days were counted in.
    public var timeZone: String

    public init(totalSessions: Int, totalMinutes: Int, currentStreak: Int, longestStreak: Int, minutesThisWeek: Int, timeZone: String) {
        self.totalSessions = totalSessions
        self.totalMinutes = totalMinutes
        self.currentStreak = currentStreak
        self.longestStreak = longestStreak
        self.minutesThisWeek = minutesThisWeek
        self.timeZone = timeZone
    }
}
