import Foundation

/// Totals and streaks over a person's meditation history.
public struct MeditationStats: Codable, Sendable, Equatable {
    public var totalSessions: Int
    public var totalMinutes: Int
    /// Days in a row with a session, ending today — or yesterday, when today has none yet.
    public var currentStreak: Int
    public var longestStreak: Int
    /// Minutes in the current week (Monday to Sunday).
    public var minutesThisWeek: Int

    public init(totalSessions: Int, totalMinutes: Int, currentStreak: Int, longestStreak: Int, minutesThisWeek: Int) {
        self.totalSessions = totalSessions
        self.totalMinutes = totalMinutes
        self.currentStreak = currentStreak
        self.longestStreak = longestStreak
        self.minutesThisWeek = minutesThisWeek
    }

    /// One session as the statistics see it.
    public struct Entry: Sendable, Equatable {
        public var completedAt: Date
        public var seconds: Int
        public init(completedAt: Date, seconds: Int) {
            self.completedAt = completedAt
            self.seconds = seconds
        }
    }

    /// Sessions shorter than this (in seconds) stay in the history but count toward no streak,
    /// total or week: a session started by mistake and ended at once is not a day of practice.
    public static let minimumCountedSeconds = 60

    /// The statistics for `entries` of at least `minimumCountedSeconds`, with days and weeks as they fall in `timeZone` (the person's,
    /// sent by their device): a session at 23:30 in Sydney counts for that Sydney day.
    public static func compute(_ entries: [Entry], timeZone: TimeZone, now: Date) -> MeditationStats {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2  // Monday
        let entries = entries.filter { $0.seconds >= minimumCountedSeconds }

        let totalSeconds = entries.reduce(0) { $0 + max(0, $1.seconds) }
        let days = Set(entries.map { calendar.startOfDay(for: $0.completedAt) })
        let sorted = days.sorted()

        var longest = 0, run = 0
        var previous: Date?
        for day in sorted {
            if let previous, calendar.date(byAdding: .day, value: 1, to: previous) == day { run += 1 } else { run = 1 }
            longest = max(longest, run)
            previous = day
        }

        let today = calendar.startOfDay(for: now)
        var current = 0
        var cursor = days.contains(today) ? today : calendar.date(byAdding: .day, value: -1, to: today)!
        while days.contains(cursor) {
            current += 1
            cursor = calendar.date(byAdding: .day, value: -1, to: cursor)!
        }

        let week = calendar.dateInterval(of: .weekOfYear, for: now)
        let weekSeconds = entries.filter { week?.contains($0.completedAt) == true }.reduce(0) { $0 + max(0, $1.seconds) }

        return MeditationStats(totalSessions: entries.count, totalMinutes: Int((Double(totalSeconds) / 60).rounded()),
                               currentStreak: current, longestStreak: longest,
                               minutesThisWeek: Int((Double(weekSeconds) / 60).rounded()))
    }
}
