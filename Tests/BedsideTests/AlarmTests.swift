import Bedside
import Foundation
import Testing

@Suite("Bedside alarm and wake greeting, in virtual time")
struct AlarmTests {
    /// Berlin, so a change of clocks falls inside the tests' weeks.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }()

    /// 2026-11-23 is a Monday.
    static func at(_ day: Int, _ hour: Int, _ minute: Int, second: Int = 0, month: Int = 11) -> Date {
        calendar.date(from: DateComponents(year: 2026, month: month, day: day, hour: hour, minute: minute, second: second))!
    }

    @Test("the next ring: later today, else tomorrow; on the repeat days only; none when off")
    func nextRing() {
        let once = AlarmRule(hour: 7, minute: 0, enabled: true, days: [])
        #expect(once.nextRing(after: Self.at(23, 6, 59), calendar: Self.calendar) == Self.at(23, 7, 0))
        #expect(once.nextRing(after: Self.at(23, 7, 0), calendar: Self.calendar) == Self.at(24, 7, 0))
        #expect(once.nextRing(after: Self.at(23, 22, 30), calendar: Self.calendar) == Self.at(24, 7, 0))
        let weekdays = AlarmRule(hour: 6, minute: 45, enabled: true, days: [1, 2, 3, 4, 5])
        // Friday night rings on Monday.
        #expect(weekdays.nextRing(after: Self.at(27, 23, 0), calendar: Self.calendar) == Self.at(30, 6, 45))
        let sunday = AlarmRule(hour: 9, minute: 0, enabled: true, days: [0])
        #expect(sunday.nextRing(after: Self.at(23, 8, 0), calendar: Self.calendar) == Self.at(29, 9, 0))
        #expect(AlarmRule(hour: 7, minute: 0, enabled: false, days: []).nextRing(after: Self.at(23, 1, 0), calendar: Self.calendar) == nil)
        // Across the spring change of clocks (29 March 2026), still at 7:00 on the wall.
        #expect(once.nextRing(after: Self.at(28, 23, 0, month: 3), calendar: Self.calendar) == Self.at(29, 7, 0, month: 3))
        #expect(AlarmRule(time: "06:30", enabled: true, days: [6]) == AlarmRule(hour: 6, minute: 30, enabled: true, days: [6]))
        #expect(AlarmRule(time: "24:00", enabled: true, days: []) == nil && AlarmRule(time: "07:00", enabled: true, days: [7]) == nil)
    }

    @Test("tests 14 and 15: a piece finished before the alarm: the chime, then the greeting 5 s later, once")
    func greetingAfterCompletedContent() {
        var run = AlarmRun(calendar: Self.calendar)
        #expect(run.set(AlarmRule(hour: 7, minute: 0, enabled: true, days: []), now: Self.at(23, 22, 0)) == [.clearCompleted])
        #expect(run.state == .armed(Self.at(24, 7, 0)))
        #expect(run.tick(now: Self.at(24, 6, 59, second: 59), contentCompleted: true).isEmpty)
        #expect(run.tick(now: Self.at(24, 7, 0), contentCompleted: true) == [.startChime])
        #expect(run.tick(now: Self.at(24, 7, 0, second: 4), contentCompleted: true).isEmpty)
        #expect(run.tick(now: Self.at(24, 7, 0, second: 5), contentCompleted: true) == [.speakGreeting, .clearCompleted])
        #expect(run.tick(now: Self.at(24, 7, 0, second: 30), contentCompleted: false).isEmpty)
        #expect(run.stop(now: Self.at(24, 7, 1)) == [.stopChime, .clearCompleted, .disable])
        #expect(run.state == .off && run.rule?.enabled == false)
    }

    @Test("tests 16 and 17: nothing finished (or a piece stopped by hand): the chime, and no greeting")
    func noGreeting() {
        var run = AlarmRun(calendar: Self.calendar)
        _ = run.set(AlarmRule(hour: 7, minute: 0, enabled: true, days: []), now: Self.at(23, 22, 0))
        #expect(run.tick(now: Self.at(24, 7, 0, second: 2), contentCompleted: false) == [.startChime])
        for second in stride(from: 3, through: 59, by: 4) {
            #expect(run.tick(now: Self.at(24, 7, 0, second: second), contentCompleted: true).isEmpty, "the flag must be set before the alarm rings")
        }
    }

    @Test("snooze rings again 9 minutes later; stop on a repeating alarm arms the next day")
    func snoozeAndRepeat() {
        var run = AlarmRun(calendar: Self.calendar)
        _ = run.set(AlarmRule(hour: 6, minute: 45, enabled: true, days: [1, 2, 3, 4, 5]), now: Self.at(23, 22, 0))
        #expect(run.tick(now: Self.at(24, 6, 45), contentCompleted: false) == [.startChime])
        #expect(run.snooze(now: Self.at(24, 6, 46)) == [.stopChime])
        #expect(run.state == .snoozed(until: Self.at(24, 6, 55)))
        #expect(run.tick(now: Self.at(24, 6, 54, second: 59), contentCompleted: false).isEmpty)
        #expect(run.tick(now: Self.at(24, 6, 55), contentCompleted: false) == [.startChime])
        #expect(run.stop(now: Self.at(24, 6, 56)) == [.stopChime, .clearCompleted])
        #expect(run.state == .armed(Self.at(25, 6, 45)))
        // Nothing to snooze or stop while armed.
        #expect(run.snooze(now: Self.at(24, 12, 0)).isEmpty && run.stop(now: Self.at(24, 12, 0)).isEmpty)
        // Turned off: nothing rings.
        #expect(run.set(AlarmRule(hour: 6, minute: 45, enabled: false, days: [1]), now: Self.at(24, 12, 0)).isEmpty)
        #expect(run.state == .off && run.tick(now: Self.at(25, 6, 45), contentCompleted: true).isEmpty)
    }

    @Test("the greeting says the time and the day, and its kind sentence changes from day to day")
    func greetingText() {
        let monday = WakeGreeting.text(at: Self.at(23, 7, 5), calendar: Self.calendar)
        #expect(monday.hasPrefix("Good morning. It is 7:05 a.m. on Monday, the twenty-third of November. "))
        #expect(WakeGreeting.text(at: Self.at(23, 7, 5), calendar: Self.calendar, twentyFourHour: true).contains("It is 07:05 on Monday"))
        #expect(WakeGreeting.text(at: Self.at(1, 14, 0, month: 12), calendar: Self.calendar).hasPrefix("Good afternoon. It is 2:00 p.m. on Tuesday, the first of December."))
        var sentences: [String] = []
        for day in 1...14 {
            let text = WakeGreeting.text(at: Self.at(day, 7, 0), calendar: Self.calendar)
            sentences.append(WakeGreeting.sentences.first { text.hasSuffix(" " + $0) } ?? "none in \(text)")
        }
        #expect(zip(sentences, sentences.dropFirst()).allSatisfy { $0 != $1 }, "two days in a row say the same: \(sentences)")
        #expect(Set(sentences).count == 14 && !sentences.contains { $0.hasPrefix("none") }, "\(sentences)")
    }
}
