import Bedside
import Foundation
import SharedCases
import Testing

/// `Tests/Shared/bedside-alarm-cases.json`, which the browser's alarm (Web/bedside/alarm.js) is held to as well.
struct SharedAlarmCases: Decodable {
    struct Rule: Decodable {
        var time: String
        var enabled: Bool
        var days: [Int]
        var alarmRule: AlarmRule? { AlarmRule(time: time, enabled: enabled, days: days) }
    }

    struct NextRing: Decodable, CustomTestStringConvertible {
        var name: String
        var timeZone: String
        var now: String
        var rule: Rule
        var expected: String?
        var testDescription: String { name }
    }

    struct Step: Decodable {
        var at: String
        var event: String
        var completed: Bool?
        var effects: [String]
        var state: String
        var ringAt: String?
    }

    struct Run: Decodable, CustomTestStringConvertible {
        var name: String
        var timeZone: String
        var rule: Rule
        var steps: [Step]
        var testDescription: String { name }
    }

    var nextRing: [NextRing]
    var runs: [Run]

    static func load() throws -> SharedAlarmCases {
        try SharedCases.load("bedside-alarm-cases.json")
    }

    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// A wall-clock time (2026-11-23T06:59:00) in the calendar's zone.
    static func date(_ text: String, _ calendar: Calendar) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.date(from: text)!
    }
}

@Suite("Bedside alarm: the cases shared with the browser")
struct SharedAlarmCasesTests {
    static let shared = try! SharedAlarmCases.load()

    @Test("the next ring", arguments: shared.nextRing)
    func nextRing(_ sharedCase: SharedAlarmCases.NextRing) throws {
        let calendar = SharedAlarmCases.calendar(sharedCase.timeZone)
        let rule = try #require(sharedCase.rule.alarmRule)
        let ring = rule.nextRing(after: SharedAlarmCases.date(sharedCase.now, calendar), calendar: calendar)
        #expect(ring == sharedCase.expected.map { SharedAlarmCases.date($0, calendar) })
    }

    @Test("a night of the alarm", arguments: shared.runs)
    func run(_ sharedCase: SharedAlarmCases.Run) throws {
        let calendar = SharedAlarmCases.calendar(sharedCase.timeZone)
        let rule = try #require(sharedCase.rule.alarmRule)
        var run = AlarmRun(calendar: calendar)
        for (number, step) in sharedCase.steps.enumerated() {
            let now = SharedAlarmCases.date(step.at, calendar)
            let effects: [AlarmRun.Effect]
            switch step.event {
            case "set": effects = run.set(rule, now: now)
            case "tick": effects = run.tick(now: now, contentCompleted: step.completed ?? false)
            case "snooze": effects = run.snooze(now: now)
            case "stop": effects = run.stop(now: now)
            default: Issue.record("unknown event \(step.event)"); return
            }
            let label = "step \(number + 1) (\(step.event) at \(step.at))"
            #expect(effects.map { String(describing: $0) } == step.effects, "\(label)")
            let (state, ringAt): (String, Date?) = switch run.state {
            case .off: ("off", nil)
            case let .armed(at): ("armed", at)
            case .ringing: ("ringing", nil)
            case let .snoozed(until): ("snoozed", until)
            }
            #expect(state == step.state, "\(label)")
            if let expected = step.ringAt { #expect(ringAt == SharedAlarmCases.date(expected, calendar), "\(label)") }
        }
    }
}
