@testable import Breathing
import Foundation
import Testing

/// Narration lengths as the rendered files have them (seconds).
let narrationLength: @Sendable (String) -> Double = { file in
    switch file {
    case "sessions/basic-breathing/intro-welcome": 32
    case "sessions/basic-breathing/closing": 28
    default: 9
    }
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func variant(_ minutes: Int) throws -> MeditationManifest.Variant {
    try MeditationManifest.bundled().variant(session: "basic-breathing", minutes: minutes)
}

func cues(_ minutes: Int, seed: UInt64 = 7) throws -> [ScheduledCue] {
    var random = SeededGenerator(seed: seed)
    return CueScheduler.schedule(try variant(minutes), length: narrationLength, using: &random)
}

@Suite("Cue schedule")
struct ScheduleTests {
    @Test("5 minutes: the welcome at 0, one reminder while breathing, the closing where its phase starts")
    func fiveMinutes() throws {
        let schedule = try cues(5)
        #expect(schedule.map(\.audioFile).first == "sessions/basic-breathing/intro-welcome")
        #expect(schedule.last == ScheduledCue(atSeconds: 260, audioFile: "sessions/basic-breathing/closing"))
        #expect(schedule.count == 3)
        #expect(schedule[1].audioFile.contains("/reminder-"))
        #expect((130...180).contains(schedule[1].atSeconds))
    }

    @Test("reminders never repeat back to back, and a session hears each before any twice", arguments: [10, 20])
    func remindersVary(minutes: Int) throws {
        let pool = try #require(try variant(minutes).phases[1].interjectionWindows?.first?.audioPool)
        #expect(pool.count >= 6, "enough reminders in our own words")
        for seed in UInt64(1)...200 {
            let heard = try cues(minutes, seed: seed).map(\.audioFile).filter { $0.contains("/reminder-") }
            #expect(Set(heard).count == heard.count, "seed \(seed): \(heard)")
        }
        // With a pool of two and three windows the third may repeat, but never the one just played.
        let small = MeditationManifest.Variant(durationMinutes: 1, phases: [
            .init(type: .breathing, durationSeconds: 60, fixedCues: [], interjectionWindows: [
                .init(earliestSeconds: 0, latestSeconds: 1, audioPool: ["a", "b"]),
                .init(earliestSeconds: 10, latestSeconds: 11, audioPool: ["a", "b"]),
                .init(earliestSeconds: 20, latestSeconds: 21, audioPool: ["a", "b"]),
            ]),
        ])
        for seed in UInt64(1)...50 {
            var random = SeededGenerator(seed: seed)
            let files = CueScheduler.schedule(small, using: &random).map(\.audioFile)
            #expect(zip(files, files.dropFirst()).allSatisfy { $0 != $1 }, "seed \(seed): \(files)")
        }
    }

    @Test("one interjection per window, inside it, from its pool; the same seed gives the same schedule", arguments: [5, 10, 20])
    func interjections(minutes: Int) throws {
        let schedule = try cues(minutes)
        let variant = try variant(minutes)
        let breathingStart = Double(variant.phaseStarts[1])
        let windows = variant.phases[1].interjectionWindows ?? []
        let interjections = schedule.filter { $0.audioFile.contains("reminder") }
        #expect(interjections.count == windows.count)
        for (cue, window) in zip(interjections, windows) {
            #expect((breathingStart + Double(window.earliestSeconds)...breathingStart + Double(window.latestSeconds)).contains(cue.atSeconds))
            #expect(window.audioPool.contains(cue.audioFile))
        }
        #expect(schedule.map(\.atSeconds) == schedule.map(\.atSeconds).sorted())
        #expect(try cues(minutes, seed: 7) == schedule)
        let others = try (1...20).map { try cues(minutes, seed: $0) }
        #expect(Set(others.map { $0.map(\.atSeconds) }).count > 1, "different seeds should move the interjections")
    }

    @Test("a cue that would overlap the one before it waits until that one ends")
    func overlap() {
        let variant = MeditationManifest.Variant(durationMinutes: 1, phases: [
            .init(type: .intro, durationSeconds: 20, fixedCues: [.init(atSeconds: 0, audioFile: "long"), .init(atSeconds: 5, audioFile: "short")],
                  interjectionWindows: nil),
            .init(type: .breathing, durationSeconds: 40, fixedCues: [],
                  interjectionWindows: [.init(earliestSeconds: 1, latestSeconds: 1, audioPool: ["extra"])]),
        ])
        var random = SeededGenerator(seed: 1)
        let schedule = CueScheduler.schedule(variant, length: { ["long": 12, "short": 10, "extra": 3][$0] ?? 0 }, using: &random)
        #expect(schedule.map(\.audioFile) == ["long", "short", "extra"])
        #expect(schedule.map(\.atSeconds) == [0, 12, 22])
    }
}

/// Runs a session in virtual time, ticking every `step` seconds with its sound at the same place
/// (played without a stop), recording events with their times.
func runToEnd(_ minutes: Int, step: Double = 0.25) throws -> (events: [(Double, MeditationRun.Event)], run: MeditationRun) {
    var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(minutes))
    var events = run.start(at: t0).map { (0.0, $0) }
    var clock = 0.0
    while run.state.status == .active {
        clock += step
        events += run.tick(at: t0.addingTimeInterval(clock), position: clock).map { (clock, $0) }
    }
    return (events, run)
}

@Suite("Session machine")
struct SessionMachineTests {
    @Test("a full session changes phase on time as its sound goes on, and completes once, dated when the sound reached the end",
          arguments: [5, 10, 20])
    func fullSession(minutes: Int) throws {
        var (events, run) = try runToEnd(minutes)
        let phases = events.compactMap { time, event -> (Double, MeditationManifest.PhaseType)? in
            if case let .phaseChanged(_, type) = event { return (time, type) } else { return nil }
        }
        let starts = try variant(minutes).phaseStarts.map(Double.init)
        #expect(phases.map(\.1) == [.intro, .breathing, .closing])
        #expect(phases.map(\.0) == starts)

        let completions = events.filter { if case .completed = $0.1 { true } else { false } }
        #expect(completions.count == 1 && completions.first?.0 == Double(minutes * 60))
        guard case let .completed(record) = events.last?.1 else { Issue.record("no completion"); return }
        #expect(record.completedFully && record.actualDurationSeconds == minutes * 60 && record.plannedDurationSeconds == minutes * 60)
        #expect(record.completedAt == t0.addingTimeInterval(Double(minutes * 60)))
        #expect(run.state.status == .complete)
        let lateTick = run.tick(at: t0.addingTimeInterval(10_000), position: Double(minutes * 60 + 8))
        #expect(lateTick.isEmpty)
    }

    @Test("ending early records what was heard; nothing after it")
    func endEarly() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(5))
        _ = run.start(at: t0)
        _ = run.tick(at: t0.addingTimeInterval(100), position: 100)
        let ended = run.endEarly(at: t0.addingTimeInterval(104), position: 99.6)
        let record = try #require(ended)
        #expect(!record.completedFully && record.actualDurationSeconds == 100)
        #expect(record.completedAt == t0.addingTimeInterval(104))
        #expect(run.state.status == .endedEarly)
        let afterEnd = run.tick(at: t0.addingTimeInterval(400), position: 300)
        #expect(afterEnd.isEmpty)
        let endedAgain = run.endEarly(at: t0.addingTimeInterval(401), position: 300)
        #expect(endedAgain == nil)
    }

    @Test("elapsed is the position heard: a pause holds it, and wall-clock time is never counted")
    func pauseArithmetic() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(5))
        #expect(run.elapsed == 0)
        _ = run.start(at: t0)
        let paused = run.pause(at: t0.addingTimeInterval(60), position: 60)
        #expect(paused)
        let whilePaused = run.tick(at: t0.addingTimeInterval(200), position: 60)
        #expect(whilePaused.isEmpty)
        #expect(run.elapsed == 60)       // held while paused
        let pausedAgain = run.pause(at: t0.addingTimeInterval(201), position: 60)
        #expect(!pausedAgain)   // already paused
        let resumed = run.resume(at: t0.addingTimeInterval(300))
        #expect(resumed)
        _ = run.tick(at: t0.addingTimeInterval(360), position: 120)
        #expect(run.elapsed == 120)
        // The sound was held by the system for 100 s (a call): the clock stood where the sound did.
        _ = run.tick(at: t0.addingTimeInterval(460), position: 121)
        #expect(run.elapsed == 121)
        _ = run.tick(at: t0.addingTimeInterval(520), position: 180)
        #expect(run.elapsed == 180)
        #expect(run.remaining == 120)
        // The phone was locked and its scripts stopped while the sound played on past the end: the
        // first tick after completes the whole session, dated when the sound reached the end.
        let events = run.tick(at: t0.addingTimeInterval(2000), position: 310)
        #expect(run.state.status == .complete)
        guard case let .completed(record) = events.last else { Issue.record("not complete: \(events)"); return }
        #expect(record.actualDurationSeconds == 300 && record.completedFully)
        #expect(record.completedAt == t0.addingTimeInterval(520 + 120))
    }

    @Test("the position only moves forward: a sound reloaded at 0 before its seek takes nothing back")
    func positionMovesForward() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(5))
        _ = run.start(at: t0)
        _ = run.tick(at: t0.addingTimeInterval(90), position: 90)
        _ = run.tick(at: t0.addingTimeInterval(91), position: 0)
        #expect(run.elapsed == 90)
        #expect(run.state.heardSeconds == 90)
    }

    @Test("a pause of 30 minutes ends the session as a partial one")
    func pauseTimeout() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(10))
        _ = run.start(at: t0)
        run.pause(at: t0.addingTimeInterval(90), position: 90)
        let beforeTimeout = run.tick(at: t0.addingTimeInterval(90 + 1799), position: 90)
        #expect(beforeTimeout.isEmpty)
        var resumedLate = run
        let resumedAfterTimeout = resumedLate.resume(at: t0.addingTimeInterval(90 + 1800))
        #expect(!resumedAfterTimeout)
        let events = run.tick(at: t0.addingTimeInterval(90 + 1800), position: 90)
        guard case let .endedEarly(record, timedOut) = events.first else { Issue.record("not ended: \(events)"); return }
        #expect(timedOut && !record.completedFully && record.actualDurationSeconds == 90)
        #expect(record.completedAt == t0.addingTimeInterval(90))
        #expect(run.state.status == .endedEarly)
    }

    @Test("recovery: fresh state comes back at the position heard; stale or finished state is discarded")
    func recovery() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(5))
        _ = run.start(at: t0)
        _ = run.tick(at: t0.addingTimeInterval(50), position: 50)
        run.pause(at: t0.addingTimeInterval(50), position: 50)
        let saved = try JSONDecoder().decode(MeditationSessionPersisted.self, from: JSONEncoder().encode(run.state))
        #expect(saved.heardSeconds == 50)

        var fresh = try #require(MeditationRun.recover(saved, variant: try variant(5), at: t0.addingTimeInterval(50 + 59 * 60)))
        #expect(fresh.elapsed == 50)
        #expect(MeditationRun.recover(saved, variant: try variant(5), at: t0.addingTimeInterval(50 + 60 * 60)) == nil)
        #expect(MeditationRun.recover(saved, variant: try variant(10), at: t0.addingTimeInterval(60)) == nil)

        // Resumed within the pause limit, it carries on from the place it paused at.
        let resumedFresh = fresh.resume(at: t0.addingTimeInterval(50 + 20 * 60))
        #expect(resumedFresh)
        _ = fresh.tick(at: t0.addingTimeInterval(50 + 20 * 60 + 10), position: 60)
        #expect(fresh.elapsed == 60)

        let (_, done) = try runToEnd(5)
        #expect(MeditationRun.recover(done.state, variant: try variant(5), at: t0.addingTimeInterval(301)) == nil)
    }

    @Test("an active session reopened after a crash resumes where its sound stopped: the time away is not counted")
    func recoverActive() throws {
        var run = MeditationRun(sessionType: "basic-breathing", variant: try variant(10))
        _ = run.start(at: t0)
        _ = run.tick(at: t0.addingTimeInterval(60), position: 60)
        // Closed at one minute, reopened 30 minutes later (regression: it was recorded as a complete 10 minutes).
        var recovered = try #require(MeditationRun.recover(run.state, variant: try variant(10), at: t0.addingTimeInterval(60 + 30 * 60)))
        #expect(recovered.elapsed == 60)
        let onResuming = recovered.tick(at: t0.addingTimeInterval(60 + 30 * 60 + 1), position: 64)
        #expect(onResuming.isEmpty)
        let ended = recovered.endEarly(at: t0.addingTimeInterval(60 + 30 * 60 + 2), position: 65)
        let record = try #require(ended)
        #expect(record.actualDurationSeconds == 65 && !record.completedFully)
    }
}

@Suite("Meditation statistics")
struct StatsTests {
    static func at(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("a day is the person's day: two sessions an hour apart across Sydney's midnight are a two-day streak")
    func timeZones() {
        let entries = [MeditationStats.Entry(completedAt: Self.at("2026-11-20T12:30:00Z"), seconds: 300),   // 23:30 in Sydney
                       MeditationStats.Entry(completedAt: Self.at("2026-11-20T13:30:00Z"), seconds: 600)]   // 00:30 the next day
        let now = Self.at("2026-11-21T01:00:00Z")
        let sydney = MeditationStats.compute(entries, timeZone: TimeZone(identifier: "Australia/Sydney")!, now: now)
        #expect(sydney.currentStreak == 2 && sydney.longestStreak == 2)
        let utc = MeditationStats.compute(entries, timeZone: TimeZone(identifier: "UTC")!, now: now)
        #expect(utc.currentStreak == 1 && utc.longestStreak == 1)
        #expect(utc.totalSessions == 2 && utc.totalMinutes == 15)
    }

    @Test("the current streak survives until the end of the day after; the longest is remembered; minutes this week start on Monday")
    func streaks() {
        let utc = TimeZone(identifier: "UTC")!
        let days = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-10", "2026-11-16", "2026-11-17", "2026-11-18"]
        let entries = days.map { MeditationStats.Entry(completedAt: Self.at("\($0)T08:00:00Z"), seconds: 600) }
        // Thursday the 19th, nothing yet today: the streak of 16–18 still counts.
        let thursday = MeditationStats.compute(entries, timeZone: utc, now: Self.at("2026-11-19T20:00:00Z"))
        #expect(thursday.currentStreak == 3 && thursday.longestStreak == 4)
        #expect(thursday.minutesThisWeek == 30)   // Monday 16th to now
        // Saturday: a day was missed, the streak is over.
        let saturday = MeditationStats.compute(entries, timeZone: utc, now: Self.at("2026-11-21T09:00:00Z"))
        #expect(saturday.currentStreak == 0 && saturday.longestStreak == 4)
        #expect(MeditationStats.compute([], timeZone: utc, now: Date()) == MeditationStats(totalSessions: 0, totalMinutes: 0, currentStreak: 0, longestStreak: 0, minutesThisWeek: 0))
    }

    @Test("a session ended within its first minute stays out of the streak and the totals")
    func shortSessionsDoNotCount() {
        let utc = TimeZone(identifier: "UTC")!
        let now = Self.at("2026-11-19T20:00:00Z")
        let yesterday = MeditationStats.Entry(completedAt: Self.at("2026-11-18T08:00:00Z"), seconds: 600)
        let slip = MeditationStats.Entry(completedAt: Self.at("2026-11-19T08:00:00Z"), seconds: 3)
        let stats = MeditationStats.compute([yesterday, slip], timeZone: utc, now: now)
        #expect(stats == MeditationStats(totalSessions: 1, totalMinutes: 10, currentStreak: 1, longestStreak: 1, minutesThisWeek: 10))
        let minute = MeditationStats.Entry(completedAt: slip.completedAt, seconds: MeditationStats.minimumCountedSeconds)
        #expect(MeditationStats.compute([yesterday, minute], timeZone: utc, now: now).currentStreak == 2)
    }
}
