import Foundation

/// A Bedside alarm: a time of day, on or off, and the weekdays it repeats on (none: once).
public struct AlarmRule: Sendable, Equatable {
    public var hour: Int
    public var minute: Int
    public var enabled: Bool
    /// 0 = Sunday … 6 = Saturday; empty rings once.
    public var days: Set<Int>

    public init(hour: Int, minute: Int, enabled: Bool, days: Set<Int>) {
        self.hour = hour
        self.minute = minute
        self.enabled = enabled
        self.days = days
    }

    /// `HH:MM` and its weekdays, as the settings keep them; nil for a time that is not one.
    public init?(time: String, enabled: Bool, days: [Int]) {
        let parts = time.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute),
              days.allSatisfy({ (0...6).contains($0) }) else { return nil }
        self.init(hour: hour, minute: minute, enabled: enabled, days: Set(days))
    }

    /// The first moment after `now` that the alarm rings, in `calendar`'s time zone; nil when off.
    public func nextRing(after now: Date, calendar: Calendar) -> Date? {
        guard enabled else { return nil }
        let startOfToday = calendar.startOfDay(for: now)
        for offset in 0...7 {
            guard let day = calendar.date(byAdding: .day, value: offset, to: startOfToday),
                  let ring = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day), ring > now else { continue }
            let weekday = calendar.component(.weekday, from: ring) - 1
            if days.isEmpty || days.contains(weekday) { return ring }
        }
        return nil
    }
}

/// The alarm as it runs through the night, in virtual time: armed, ringing (a chime that rises
/// over 60 s), snoozed for 9 minutes, stopped. The wake greeting is spoken 5 s after the chime
/// starts, but only when a meditation or poem played to its end since the alarm was set.
public struct AlarmRun: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case off
        case armed(Date)
        case ringing(since: Date, greetingDue: Date?)
        case snoozed(until: Date)
    }

    public enum Effect: Sendable, Equatable {
        /// Start the rising chime.
        case startChime
        case stopChime
        /// Speak the wake greeting now.
        case speakGreeting
        /// `contentCompletedSuccessfully` off: set with the alarm, and spent by the greeting.
        case clearCompleted
        /// A one-time alarm that has rung is turned off.
        case disable
    }

    public static let snoozeSeconds: TimeInterval = 9 * 60
    public static let greetingDelay: TimeInterval = 5
    public static let chimeRiseSeconds: TimeInterval = 60

    public private(set) var state: State = .off
    public private(set) var rule: AlarmRule?
    let calendar: Calendar

    public init(calendar: Calendar) {
        self.calendar = calendar
    }

    /// The alarm is set (or changed): it arms for its next time; the greeting's flag starts clear,
    /// so only a piece finished from now on earns the greeting.
    public mutating func set(_ rule: AlarmRule, now: Date) -> [Effect] {
        self.rule = rule
        state = rule.nextRing(after: now, calendar: calendar).map(State.armed) ?? .off
        return rule.enabled ? [.clearCompleted] : []
    }

    /// Time passes to `now`; `contentCompleted` is the greeting's flag as it stands.
    public mutating func tick(now: Date, contentCompleted: Bool) -> [Effect] {
        switch state {
        case let .armed(at) where now >= at, let .snoozed(until: at) where now >= at:
            state = .ringing(since: now, greetingDue: contentCompleted ? now.addingTimeInterval(Self.greetingDelay) : nil)
            return [.startChime]
        case let .ringing(since, due?) where now >= due:
            state = .ringing(since: since, greetingDue: nil)
            return [.speakGreeting, .clearCompleted]
        default:
            return []
        }
    }

    /// Snooze: the chime stops and rings again in 9 minutes.
    public mutating func snooze(now: Date) -> [Effect] {
        guard case .ringing = state else { return [] }
        state = .snoozed(until: now.addingTimeInterval(Self.snoozeSeconds))
        return [.stopChime]
    }

    /// Stop: the chime ends; a repeating alarm arms for its next day, a one-time alarm turns off.
    public mutating func stop(now: Date) -> [Effect] {
        switch state {
        case .ringing, .snoozed:
            break
        case .off, .armed:
            return []
        }
        var effects: [Effect] = [.stopChime, .clearCompleted]
        if let rule, !rule.days.isEmpty, let next = rule.nextRing(after: now, calendar: calendar) {
            state = .armed(next)
        } else {
            state = .off
            rule?.enabled = false
            effects.append(.disable)
        }
        return effects
    }
}

/// What the wake greeting says: the time, the day, and a kind sentence that changes from day to day.
public enum WakeGreeting {
    /// Kind sentences, one a day in turn by the day of the year.
    public static let sentences = [
        "Take a slow breath before you rise; the day can wait a moment.",
        "You rested, and that was enough. Begin gently.",
        "Notice one small good thing as you open your eyes.",
        "Stretch your arms, your legs, your back. Welcome back.",
        "Whatever today holds, you can meet it one step at a time.",
        "Let the light in slowly. There is no rush.",
        "Be as kind to yourself today as you would be to a friend.",
        "A new morning: yesterday is finished, and today is yours.",
        "Drink some water, look out of the window, and breathe.",
        "You are allowed to take today gently.",
        "Listen for a moment to the sounds of the morning.",
        "Rise slowly, and carry a little of the night's quiet with you.",
        "Good things can be small. Look for one today.",
        "Your breath has been with you all night. Say good morning to it.",
    ]

    /// The greeting for `date`: "Good morning. It is 7:05 on Tuesday, the twenty-fourth of November." and the day's sentence.
    public static func text(at date: Date, calendar: Calendar, twentyFourHour: Bool = false) -> String {
        let parts = calendar.dateComponents([.hour, .minute, .weekday, .day, .month], from: date)
        let hour = parts.hour ?? 0, minute = parts.minute ?? 0
        let salutation = hour < 12 ? "Good morning." : hour < 18 ? "Good afternoon." : "Good evening."
        let clock: String
        if twentyFourHour {
            clock = String(format: "%02d:%02d", hour, minute)
        } else {
            let twelve = hour % 12 == 0 ? 12 : hour % 12
            clock = String(format: "%d:%02d %@", twelve, minute, hour < 12 ? "a.m." : "p.m.")
        }
        let weekday = calendar.standaloneWeekdaySymbols[((parts.weekday ?? 1) - 1) % 7]
        let month = calendar.standaloneMonthSymbols[((parts.month ?? 1) - 1) % 12]
        let dayOfYear = calendar.ordinality(of: .day, in: .year, for: date) ?? 1
        let sentence = sentences[(dayOfYear - 1) % sentences.count]
        return "\(salutation) It is \(clock) on \(weekday), the \(ordinal(parts.day ?? 1)) of \(month). \(sentence)"
    }

    /// 1 → "first", 24 → "twenty-fourth": spoken, not read as digits.
    static func ordinal(_ day: Int) -> String {
        let ones = ["", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]
        let teens = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"]
        switch day {
        case 1...9: return ones[day]
        case 10...19: return teens[day - 10]
        case 20: return "twentieth"
        case 21...29: return "twenty-" + ones[day - 20]
        case 30: return "thirtieth"
        case 31: return "thirty-first"
        default: return "\(day)th"
        }
    }
}
