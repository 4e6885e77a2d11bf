import Foundation
import Playback
import SharedCases
import Testing

/// `Tests/Shared/sleep-timer-cases.json`, which the web players' timer rule (`Web/player/sleep-timer.js`)
/// answers too (`e2e/test_listen_player.py`): one truth for both, and the fade pinned, its length,
/// shape and gains (the server's live Wind Down file answers the gains too, in ReverieServerTests).
struct SharedSleepTimerCases: Decodable {
    struct Moment: Decodable {
        var seconds: Double
        var volume: Double
        var countdown: String
    }

    struct Play: Decodable {
        var after: Double
        var stoppedAt: Double
        var resumeAt: Double?
        var endsIn: Double?
    }

    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var option: SleepTimer.Option
        var position: Double
        var duration: Double
        var rate: Double
        var endsIn: Double
        var at: [Moment]
        var play: [Play]
        var testDescription: String { name }

        enum CodingKeys: String, CodingKey { case name, option, position, duration, rate, endsIn, at, play }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            // Minutes as a number, or "end" for End of Content, as the web player writes them.
            if let minutes = try? container.decode(Int.self, forKey: .option) {
                option = .minutes(minutes)
            } else if try container.decode(String.self, forKey: .option) == "end" {
                option = .endOfContent
            } else {
                throw DecodingError.dataCorruptedError(forKey: .option, in: container, debugDescription: "minutes or \"end\"")
            }
            position = try container.decode(Double.self, forKey: .position)
            duration = try container.decode(Double.self, forKey: .duration)
            rate = try container.decode(Double.self, forKey: .rate)
            endsIn = try container.decode(Double.self, forKey: .endsIn)
            at = try container.decode([Moment].self, forKey: .at)
            play = try container.decode([Play].self, forKey: .play)
        }
    }

    /// The timer's one fade, and its gain with `left` seconds to the end.
    var fade: SleepFadeCases
    var rearmWindowSeconds: Double
    var cases: [Case]

    static func load() throws -> SharedSleepTimerCases {
        try SharedCases.load("sleep-timer-cases.json")
    }
}

@Suite("Sleep timer: the cases shared with the browser")
struct SharedSleepTimerCaseTests {
    static let shared = try! SharedSleepTimerCases.load()
    static let setAt = Date(timeIntervalSinceReferenceDate: 0)

    @Test("the file pins the fade (its length, shape and ffmpeg curve) and the rearm window to the engine's constants")
    func constants() {
        #expect(Self.shared.fade.seconds == SleepTimer.fade.seconds)
        #expect(Self.shared.fade.shape == SleepTimer.fade.shape.rawValue)
        #expect(Self.shared.fade.ffmpegCurve == SleepTimer.fade.ffmpegCurve)
        #expect(Self.shared.rearmWindowSeconds == SleepTimer.rearmWindow)
        #expect(Self.shared.cases.count >= 8 && Self.shared.fade.gains.count >= 6)
    }

    @Test("the fade's gain is the shared file's with each number of seconds left, and so is the timer's volume then", arguments: shared.fade.gains)
    func fadeGain(_ row: SleepFadeCases.Gain) {
        #expect(abs(SleepTimer.fade.gain(left: row.left) - row.gain) < 1e-9)
        let timer = SleepTimer(.minutes(15), now: Self.setAt, position: 0, duration: 3600)
        #expect(abs(timer.volume(at: timer.endsAt.addingTimeInterval(-row.left)) - row.gain) < 1e-9)
    }

    @Test("a rendition's cache tag names the fade's length and shape, and another fade has another")
    func cacheTag() {
        #expect(SleepTimer.fade.cacheTag == "fade30-linear")
        #expect(SleepFade(seconds: 12.5, shape: .linear).cacheTag == "fade12.5-linear")
    }

    @Test("each case ends, fades, counts down and starts again as the shared file says", arguments: shared.cases)
    func sharedCase(_ sharedCase: SharedSleepTimerCases.Case) throws {
        let timer = SleepTimer(sharedCase.option, now: Self.setAt, position: sharedCase.position,
                               duration: sharedCase.duration, rate: sharedCase.rate)
        #expect(timer.endsAt.timeIntervalSince(Self.setAt) == sharedCase.endsIn)
        for moment in sharedCase.at {
            let now = Self.setAt.addingTimeInterval(moment.seconds)
            #expect(abs(timer.volume(at: now) - moment.volume) < 1e-9, "volume at \(moment.seconds) s")
            #expect(timer.countdown(at: now) == moment.countdown, "countdown at \(moment.seconds) s")
        }
        for play in sharedCase.play {
            let now = timer.endsAt.addingTimeInterval(play.after)
            let again = timer.rearm(at: now, stoppedAt: play.stoppedAt, duration: sharedCase.duration)
            #expect(again?.resumeAt == play.resumeAt, "play \(play.after) s after the end")
            if let again, let endsIn = play.endsIn {
                #expect(again.timer.option == sharedCase.option)
                #expect(again.timer.endsAt.timeIntervalSince(now) == endsIn, "play \(play.after) s after the end")
            }
        }
    }
}
