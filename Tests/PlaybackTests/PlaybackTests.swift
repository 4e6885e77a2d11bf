import Foundation
import Playback
import Testing

/// Moments in virtual time: seconds after a fixed evening.
func t(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

func event(_ id: String, _ device: String, _ at: Double, _ position: Double, _ kind: ProgressEvent.Kind = .pause) -> ProgressEvent {
    ProgressEvent(id: id, device: device, at: t(at), position: position, kind: kind)
}

@Suite("Listening progress that is never lost")
struct ListeningProgressTests {
    @Test("the position is the latest real event")
    func latest() {
        let events = [event("a", "phone", 10, 60, .play), event("b", "phone", 70, 120), event("c", "phone", 40, 90, .seek)]
        #expect(ListeningProgress.position(events) == ListeningPosition(position: 120, at: t(70), device: "phone", finished: false))
        #expect(ListeningProgress.position([]) == nil)
    }

    @Test("an offline phone coming back with old progress does not move the laptop's newer place")
    func offlinePhoneComesBack() {
        let laptop = [event("l1", "laptop", 1_000, 600, .play), event("l2", "laptop", 2_200, 1_800)]
        // Heard on the phone on the train the day before, uploaded only now.
        let phone = [event("p1", "phone", -80_000, 100, .play), event("p2", "phone", -79_000, 1_100)]
        let position = ListeningProgress.position(laptop + phone)
        #expect(position?.position == 1_800 && position?.device == "laptop")
        // In whatever order the server receives them.
        #expect(ListeningProgress.position(phone + laptop) == position)
        #expect(ListeningProgress.position((laptop + phone).reversed()) == position)
    }

    @Test("a sleep timer that writes 0:00 when it stops does not erase the night's progress")
    func timerWritesZero() {
        let events = [event("1", "phone", 0, 300, .play), event("2", "phone", 1_500, 1_800, .timer), event("3", "phone", 1_501, 0, .pause)]
        #expect(ListeningProgress.position(events)?.position == 1_800)
        // A player that loads from scratch and reports 0 says nothing either.
        #expect(ListeningProgress.position(events + [event("4", "laptop", 5_000, 0, .play)])?.position == 1_800)
    }

    @Test("a 0 counts when the person restarts or marks the item unplayed")
    func deliberateZero() {
        let heard = [event("1", "phone", 0, 900)]
        #expect(ListeningProgress.position(heard + [event("2", "phone", 10, 0, .restart)])?.position == 0)
        #expect(ListeningProgress.position(heard + [event("2", "laptop", 10, 0, .unplayed)])?.position == 0)
        // And real progress after the restart counts again.
        #expect(ListeningProgress.position(heard + [event("2", "phone", 10, 0, .restart), event("3", "phone", 70, 60)])?.position == 60)
    }

    @Test("two events at the same instant: the later to arrive decides, whichever it is")
    func sameInstant() {
        let played = event("a", "phone", 10, 300, .ended), unplayed = event("b", "laptop", 10, 0, .unplayed)
        #expect(ListeningProgress.position([played, unplayed]) == ListeningPosition(position: 0, at: t(10), device: "laptop", finished: false))
        #expect(ListeningProgress.position([unplayed, played]) == ListeningPosition(position: 300, at: t(10), device: "phone", finished: true))
        // A later instant still wins whenever it arrives.
        #expect(ListeningProgress.position([event("c", "phone", 11, 42), played, unplayed])?.position == 42)
    }

    @Test("two devices playing at once: the later report wins, report by report")
    func twoDevicesAtOnce() {
        var events: [ProgressEvent] = []
        for second in stride(from: 0.0, through: 300, by: 15) {
            events.append(event("phone-\(second)", "phone", second, 1_000 + second))
            events.append(event("laptop-\(second)", "laptop", second + 5, 40 + second))
        }
        let position = ListeningProgress.position(events)
        #expect(position?.device == "laptop" && position?.position == 340)
        // The phone speaks last.
        events.append(event("phone-last", "phone", 400, 1_400))
        #expect(ListeningProgress.position(events)?.position == 1_400)
    }

    @Test("a retried upload counts once: the first report of an id stands")
    func retries() {
        let first = event("same", "phone", 100, 500)
        let retry = ProgressEvent(id: "same", device: "phone", at: t(900), position: 2_000, kind: .pause)
        #expect(ListeningProgress.position([first, retry])?.position == 500)
        #expect(ListeningProgress.position([first, first, first]) == ListeningProgress.position([first]))
    }

    @Test("heard to the end: finished, at the full length, and 100%")
    func ended() {
        let position = ListeningProgress.position([event("1", "phone", 0, 10, .play), event("2", "phone", 600, 598.7, .ended)], duration: 600)
        #expect(position?.finished == true && position?.position == 600)
        #expect(ListeningProgress.fraction(position, duration: 600) == 1)
        #expect(ListeningProgress.fraction(ListeningProgress.position([event("1", "phone", 0, 150)]), duration: 600) == 0.25)
    }

    @Test("another device more than 2 minutes apart is offered: Continue from 12:40 (phone)")
    func offer() {
        let phone = ListeningProgress.position([event("1", "phone", 0, 760)])
        #expect(ListeningProgress.offer(phone, device: "laptop", localPosition: 100) == "Continue from 12:40 (phone)")
        #expect(ListeningProgress.offer(phone, device: "laptop", localPosition: 700) == nil)   // 60 s apart
        #expect(ListeningProgress.offer(phone, device: "phone", localPosition: 0) == nil)      // its own place
        #expect(ListeningProgress.clock(3_725) == "1:02:05" && ListeningProgress.clock(59.9) == "0:59")
    }
}

@Suite("Sleep timer in virtual time")
struct SleepTimerTests {
    @Test("the options are 15, 30, 45, 60 minutes and End of Content")
    func options() {
        #expect(SleepTimer.Option.all.map(\.label) == ["15 minutes", "30 minutes", "45 minutes", "60 minutes", "End of Content"])
    }

    @Test("a countdown on wall-clock time: 15:00, then 15:32 of a 30-minute timer, then over")
    func countdown() {
        let fifteen = SleepTimer(.minutes(15), now: t(0), position: 0, duration: 3_600)
        #expect(fifteen.countdown(at: t(0)) == "15:00 remaining")
        let thirty = SleepTimer(.minutes(30), now: t(0), position: 0, duration: 3_600)
        #expect(thirty.countdown(at: t(868)) == "15:32 remaining")
        // A page asleep behind a locked screen asks late: the answer is still right.
        #expect(thirty.hasEnded(at: t(4_000)) && thirty.remaining(at: t(4_000)) == 0 && thirty.volume(at: t(4_000)) == 0)
    }

    @Test("the last 30 seconds fade evenly to silence, ending at the timer")
    func fade() {
        let timer = SleepTimer(.minutes(15), now: t(0), position: 0, duration: 3_600)
        #expect(timer.fadeStartsAt == t(870) && timer.endsAt == t(900))
        #expect(timer.volume(at: t(600)) == 1 && timer.volume(at: t(870)) == 1)
        #expect(abs(timer.volume(at: t(885)) - 0.5) < 1e-9 && timer.volume(at: t(900)) == 0)
        let samples = stride(from: 870.0, through: 900, by: 1).map { timer.volume(at: t($0)) }
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 > $1 })
    }

    @Test("End of Content ends with the item, at the playback rate; no timer outlasts the item")
    func endOfContent() {
        #expect(SleepTimer(.endOfContent, now: t(0), position: 100, duration: 600).endsAt == t(500))
        #expect(SleepTimer(.endOfContent, now: t(0), position: 100, duration: 600, rate: 2).endsAt == t(250))
        #expect(SleepTimer(.minutes(60), now: t(0), position: 0, duration: 600).endsAt == t(600))
    }

    @Test("play within 5 minutes of the stop starts the same timer again, 30 seconds back")
    func rearm() throws {
        let timer = SleepTimer(.minutes(15), now: t(0), position: 200, duration: 3_600)
        #expect(timer.rearm(at: t(800), stoppedAt: 1_100, duration: 3_600) == nil)   // still running
        let again = try #require(timer.rearm(at: t(900 + 240), stoppedAt: 1_100, duration: 3_600))
        #expect(again.resumeAt == 1_070 && again.timer.option == .minutes(15) && again.timer.endsAt == t(1_140 + 900))
        #expect(timer.rearm(at: t(900 + 301), stoppedAt: 1_100, duration: 3_600) == nil)
    }
}
