import Foundation

/// A sleep timer: runs on wall-clock time (timers in a hidden page fire late or not at all), fades
/// the last 30 seconds to silence, and offers to start again when play is pressed soon after.
///
/// Every answer is a function of the moment asked about, so a 60-minute timer is tested in
/// microseconds, and a page that wakes up late simply asks again.
public struct SleepTimer: Sendable, Equatable, Codable {
    /// The choices the player offers.
    public enum Option: Codable, Sendable, Equatable, Hashable {
        case minutes(Int)
        case endOfContent

        /// 15, 30, 45 and 60 minutes, then End of Content.
        public static let all: [Option] = [.minutes(15), .minutes(30), .minutes(45), .minutes(60), .endOfContent]

        public var label: String {
            switch self {
            case let .minutes(minutes): "\(minutes) minutes"
            case .endOfContent: "End of Content"
            }
        }
    }

    /// The fade before the timer ends, 30 seconds in a straight line to silence: the one place
    /// its length and shape are written in Swift (the server's renditions and the live Wind Down
    /// file fade by it too). The web players' `SLEEP_FADE` (`Web/player/sleep-timer.js`) is
    /// pinned to it by `Tests/Shared/sleep-timer-cases.json`.
    public static let fade = SleepFade(seconds: 30, shape: .linear)
    /// Pressing play this soon after the timer stopped starts the same timer again.
    public static let rearmWindow: Double = 5 * 60

    public var option: Option
    /// When the sound is gone and playback pauses.
    public var endsAt: Date

    /// A timer set at `now`, with the player at `position` of an item `duration` seconds long
    /// (End of Content ends with the item; a minutes timer never outlasts it either).
    public init(_ option: Option, now: Date, position: Double, duration: Double, rate: Double = 1) {
        self.option = option
        let toEnd = max(0, duration - position) / max(rate, 0.01)
        switch option {
        case let .minutes(minutes): endsAt = now.addingTimeInterval(min(Double(minutes) * 60, toEnd))
        case .endOfContent: endsAt = now.addingTimeInterval(toEnd)
        }
    }

    /// When the fade begins.
    public var fadeStartsAt: Date { endsAt.addingTimeInterval(-Self.fade.seconds) }

    /// Seconds left at `now` (0 once ended).
    public func remaining(at now: Date) -> Double { max(0, endsAt.timeIntervalSince(now)) }

    /// `15:32 remaining`, rounded up so it never shows 0:00 while sound plays.
    public func countdown(at now: Date) -> String {
        let left = remaining(at: now).rounded(.up)
        return ListeningProgress.clock(left) + " remaining"
    }

    public func hasEnded(at now: Date) -> Bool { now >= endsAt }

    /// The volume (0…1) at `now`: full until the fade, then the fade's gain down to silence at the end.
    public func volume(at now: Date) -> Double {
        Self.fade.gain(left: endsAt.timeIntervalSince(now))
    }

    /// Play pressed at `now` after this timer ended: within five minutes, the same timer starts
    /// again and playback resumes the fade's length before where it ended, so nothing heard during
    /// the fade is lost; later, nil (play as usual).
    public func rearm(at now: Date, stoppedAt position: Double, duration: Double) -> (timer: SleepTimer, resumeAt: Double)? {
        guard hasEnded(at: now), now.timeIntervalSince(endsAt) <= Self.rearmWindow else { return nil }
        let resume = max(0, position - Self.fade.seconds)
        return (SleepTimer(option, now: now, position: resume, duration: duration), resume)
    }
}
