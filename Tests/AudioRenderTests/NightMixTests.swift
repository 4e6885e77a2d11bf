import Foundation
import Testing

@testable import AudioRender

/// Bedside's night as the stream makes it (issue 46): what a listener hears depends on the wall
/// clock and the plan only, so the chime starts at the alarm's moment whenever the stream began.
@Suite struct NightMixTests {
    let rate = 16_000

    /// Makes the sounds and waits until they are made (they are made on a queue of their own).
    func prepared(_ room: RoomSound) async {
        NightMix.prepare(sampleRate: rate, room: room)
        await NightMix.finishPreparing(sampleRate: rate)
        #expect(NightMix.prepared(sampleRate: rate, room: room), "the night's sounds were not made")
    }

    func rms(_ samples: ArraySlice<Float>) -> Double {
        samples.isEmpty ? 0 : sqrt(samples.reduce(0) { $0 + Double($1 * $1) } / Double(samples.count))
    }

    @Test func theChimeStartsAtTheAlarmsMomentAndRises() async throws {
        await prepared(.silence)
        let alarm = Date(timeIntervalSince1970: 1_800_000_000)
        var mix = NightMix(sampleRate: rate)
        let plan = NightMix.Plan(room: .silence, roomVolume: 0.5, alarmAt: alarm)
        // From 2 s before the alarm to 20 s after, in the stream's own 0.2 s stretches.
        var night: [Float] = []
        var at = alarm.addingTimeInterval(-2)
        for _ in 0..<110 {
            night += mix.render(plan, from: at, count: rate / 5)
            at = at.addingTimeInterval(0.2)
        }
        let before = night[0..<(2 * rate)]
        #expect(before.allSatisfy { $0 == 0 }, "something sounded before the alarm")
        let first = night.firstIndex { $0 != 0 }
        #expect(abs((first ?? 0) - 2 * rate) <= rate / 1000, "the chime began at sample \(String(describing: first)), not at the alarm's moment")
        let early = rms(night[(3 * rate)..<(6 * rate)]), later = rms(night[(18 * rate)..<(21 * rate)])
        #expect(later > early * 2, "the chime did not rise: \(early) then \(later)")
    }

    @Test func aStreamThatBeganLaterHearsTheSameNight() async throws {
        await prepared(.rain)
        let start = Date(timeIntervalSince1970: 1_800_000_123.4)
        let plan = NightMix.Plan(room: .rain, roomVolume: 0.8, alarmAt: start.addingTimeInterval(1))
        var early = NightMix(sampleRate: rate), late = NightMix(sampleRate: rate)
        _ = early.render(plan, from: start.addingTimeInterval(-30), count: rate)   // a stream that began half a minute before
        let first = early.render(plan, from: start, count: 2 * rate)
        let second = late.render(plan, from: start, count: 2 * rate)
        #expect(first == second, "two listeners heard different nights at the same moment")
        #expect(rms(first[...]) > 0.01, "the room was not heard")
    }

    @Test func theRoomFollowsItsVolumeWithoutAJump() async throws {
        await prepared(.brown)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var full = NightMix(sampleRate: rate), tenth = NightMix(sampleRate: rate), moved = NightMix(sampleRate: rate)
        let second = start.addingTimeInterval(1)
        let loud = full.render(.init(room: .brown, roomVolume: 1, alarmAt: nil), from: second, count: rate)
        let quiet = tenth.render(.init(room: .brown, roomVolume: 0.1, alarmAt: nil), from: second, count: rate)
        let ratio = rms(quiet[...]) / rms(loud[...])
        #expect(abs(20 * log10(ratio) + 20) < 0.5, "the room at 10% was \(20 * log10(ratio)) dB from full, not −20 dB")
        // Moved from full to 10% (the slider), the change glides over a quarter second rather than clicking.
        _ = moved.render(.init(room: .brown, roomVolume: 1, alarmAt: nil), from: start, count: rate)
        let gliding = moved.render(.init(room: .brown, roomVolume: 0.1, alarmAt: nil), from: second, count: rate)
        #expect(rms(gliding[0..<(rate / 20)]) > rms(quiet[0..<(rate / 20)]) * 2, "the level jumped")
        #expect(gliding[(rate / 2)...] == quiet[(rate / 2)...], "after the glide the level is not the one asked for")
    }
}
