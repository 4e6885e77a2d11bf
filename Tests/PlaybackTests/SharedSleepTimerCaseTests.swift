import Foundation
import Playback
import SharedCases
import Testing

/// `Tests/Shared/sleep-timer-cases.json`, which the web players' timer rule (`Web/player/sleep-timer.js`)
/// answers too (`e2e/test_listen_player.py`): one truth for both, and the fade's length pinned.
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

    var fadeSeconds: Double
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

    @Test("the file pins the fade and the rearm window to the engine's constants")
    func constants() {
        #expect(Self.shared.fadeSeconds == SleepTimer.fadeSeconds)
        #expect(Self.shared.rearmWindowSeconds == SleepTimer.rearmWindow)
        #expect(Self.shared.cases.count >= 8)
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
