import AudioRender
import Foundation
import ReverieAPI
import Speech
import SharedCases
@testable import ReverieServer
import Testing
import Vapor

/// A finished session as the web app uploads it.
func meditation(_ id: UUID = UUID(), ending end: String, minutes: Int = 5, actual: Int? = nil, fully: Bool? = nil) -> MeditationSessionRecord {
    let completed = ISO8601DateFormatter().date(from: end)!
    let seconds = actual ?? minutes * 60
    return MeditationSessionRecord(id: id, sessionType: "basic-breathing", startedAt: completed.addingTimeInterval(-Double(seconds) - 30),
                                   completedAt: completed, plannedDurationSeconds: minutes * 60, actualDurationSeconds: seconds,
                                   completedFully: fully ?? (seconds == minutes * 60))
}

@Suite("Meditation sessions API")
struct MeditationAPITests {
    /// The test clock's now is 2027-01-15T08:00:00Z (1_800_000_000 s).
    @Test("save, latest and stats; a retried upload is stored once", arguments: TestDatabase.all)
    func history(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let empty = try await client.send(.GET, "/api/meditation-sessions/latest", auth: .cookie(ada))
            #expect(empty.status == .ok && empty.text == "null")

            let first = meditation(ending: "2027-01-13T07:00:00Z")
            let saved = try await client.send(.POST, "/api/meditation-sessions", json: first, auth: .cookie(ada))
            #expect(saved.status == .created, "\(saved.text)")
            #expect(saved.text.contains("\"planned_duration_seconds\":300") && saved.text.contains("\"completed_fully\":true"))
            #expect(try saved.decode(MeditationSessionRecord.self) == first)

            // The same upload again (the network dropped the answer): 200, nothing added.
            let retry = try await client.send(.POST, "/api/meditation-sessions", json: first, auth: .cookie(ada))
            #expect(retry.status == .ok)

            let partial = meditation(ending: "2027-01-14T07:00:00Z", minutes: 10, actual: 200)
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: partial, auth: .cookie(ada)).status == .created)
            let today = meditation(ending: "2027-01-15T07:30:00Z", minutes: 20)
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: today, auth: .cookie(ada)).status == .created)
            // The Friday before: last week, and not part of the current streak.
            let lastWeek = meditation(ending: "2027-01-08T07:00:00Z")
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: lastWeek, auth: .cookie(ada)).status == .created)

            let latest = try await client.send(.GET, "/api/meditation-sessions/latest", auth: .cookie(ada)).decode(MeditationSessionRecord.self)
            #expect(latest == today)
            let stats = try await client.send(.GET, "/api/meditation-sessions/stats?time_zone=UTC", auth: .cookie(ada))
                .decode(MeditationStatsResponse.self)
            #expect(stats == MeditationStatsResponse(totalSessions: 4, totalMinutes: 5 + 3 + 20 + 5, currentStreak: 3, longestStreak: 3,
                                                      minutesThisWeek: 5 + 3 + 20, timeZone: "UTC"))
        }
    }

    @Test("days are counted in the time zone the client sends")
    func timeZones() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            // 23:50 and 00:20 in Los Angeles: two days there, one in UTC.
            for end in ["2027-01-15T07:50:00Z", "2027-01-15T08:20:00Z"] {
                let reply = try await client.send(.POST, "/api/meditation-sessions", json: meditation(ending: end), auth: .cookie(ada))
                #expect(reply.status == .created, "\(reply.text)")
            }
            client.clock.advance(by: 3600)
            let la = try await client.send(.GET, "/api/meditation-sessions/stats?time_zone=America/Los_Angeles", auth: .cookie(ada))
                .decode(MeditationStatsResponse.self)
            #expect(la.currentStreak == 2)
            let utc = try await client.send(.GET, "/api/meditation-sessions/stats", auth: .cookie(ada)).decode(MeditationStatsResponse.self)
            #expect(utc.currentStreak == 1 && utc.timeZone == "UTC")
            let bad = try await client.send(.GET, "/api/meditation-sessions/stats?time_zone=Mars/Olympus", auth: .cookie(ada))
            #expect(bad.status == .badRequest && bad.error?.code == "invalid_time_zone")
        }
    }

    @Test("bad sessions are refused with the field named")
    func validation() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            var negative = meditation(ending: "2027-01-15T07:00:00Z")
            negative.actualDurationSeconds = -5
            var absurd = meditation(ending: "2027-01-15T07:00:00Z")
            absurd.plannedDurationSeconds = 90_000
            var backwards = meditation(ending: "2027-01-15T07:00:00Z")
            backwards.completedAt = backwards.startedAt.addingTimeInterval(-60)
            var unknown = meditation(ending: "2027-01-15T07:00:00Z")
            unknown.sessionType = "juggling"
            var future = meditation(ending: "2027-03-01T07:00:00Z")
            future.startedAt = future.completedAt.addingTimeInterval(-400)
            let notFully = meditation(ending: "2027-01-15T07:00:00Z", actual: 100, fully: true)
            let cases: [(MeditationSessionRecord, String)] = [
                (negative, "actual_duration_seconds"), (absurd, "planned_duration_seconds"), (backwards, "completed_at"),
                (unknown, "session_type"), (future, "completed_at"), (notFully, "actual_duration_seconds"),
            ]
            for (body, field) in cases {
                let reply = try await client.send(.POST, "/api/meditation-sessions", json: body, auth: .cookie(ada))
                #expect(reply.status == .badRequest, "\(field): \(reply.text)")
                #expect(reply.error?.message.hasPrefix(field + ":") == true, "\(reply.text)")
            }
            let missing = try await client.send(.POST, "/api/meditation-sessions", raw: #"{"id":"\#(UUID())","session_type":"basic-breathing"}"#, auth: .cookie(ada))
            #expect(missing.status == .badRequest && missing.text.contains("started_at"))
            // Browsers send milliseconds.
            let id = UUID()
            let precise = #"{"id":"\#(id)","session_type":"basic-breathing","started_at":"2027-01-15T06:54:00.250Z","completed_at":"2027-01-15T07:00:00.125Z","planned_duration_seconds":300,"actual_duration_seconds":300,"completed_fully":true}"#
            let reply = try await client.send(.POST, "/api/meditation-sessions", raw: precise, auth: .cookie(ada))
            #expect(reply.status == .created, "\(reply.text)")
            #expect(try await client.send(.GET, "/api/meditation-sessions/latest").status == .unauthorized)
        }
    }

    @Test("each person has their own history, even when a client reuses an id", arguments: TestDatabase.all)
    func isolation(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let shared = UUID()
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: meditation(shared, ending: "2027-01-15T07:00:00Z"), auth: .cookie(ada)).status == .created)
            #expect(try await client.send(.GET, "/api/meditation-sessions/latest", auth: .cookie(grace)).text == "null")
            let graces = try await client.send(.GET, "/api/meditation-sessions/stats", auth: .cookie(grace)).decode(MeditationStatsResponse.self)
            #expect(graces.totalSessions == 0)
            // The same id from another account is that account's own session.
            let theirs = meditation(shared, ending: "2027-01-14T07:00:00Z", minutes: 10)
            #expect(try await client.send(.POST, "/api/meditation-sessions", json: theirs, auth: .cookie(grace)).status == .created)
            let adas = try await client.send(.GET, "/api/meditation-sessions/latest", auth: .cookie(ada)).decode(MeditationSessionRecord.self)
            #expect(adas.plannedDurationSeconds == 300)
        }
    }
}

@Suite("Meditation plan and audio")
struct MeditationPlanTests {
    @Test("a plan has the phases, the cues with audio URLs and lengths, and the 4-2-6-2 keyframes; a seed makes it repeatable")
    func plan() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let five = try await client.send(.GET, "/api/meditation/plan?session=basic-breathing&minutes=5&seed=42", auth: .cookie(ada))
                .decode(MeditationPlan.self)
            #expect(five.totalSeconds == 300 && five.name == "Basic Breathing" && five.seed == 42)
            #expect(five.phases.map(\.title) == ["Introduction", "Breathing", "Closing"])
            #expect(five.phases.map(\.startSeconds) == [0, 40, 260])
            #expect(five.cues.count == 3)
            #expect(five.cues.first?.audio.url == "/audio/meditation/sessions/basic-breathing/intro-welcome")
            #expect(five.cues[1].audio.url.hasPrefix("/audio/meditation/sessions/basic-breathing/reminder-"))
            #expect(five.cues.last?.audio.url == "/audio/meditation/sessions/basic-breathing/closing")
            #expect(five.minimumCountedSeconds == 60)
            #expect(five.cues.allSatisfy { ($0.audio.durationMs ?? 0) > 1000 })
            #expect(five.pattern.map(\.word) == ["Inhale", "Hold", "Exhale", "Rest"])
            #expect(five.pattern.map(\.seconds) == [4, 2, 6, 2])
            #expect(five.pattern.first.map { [$0.scaleFrom, $0.scaleTo, $0.opacityFrom, $0.opacityTo] } == [1, 1.8, 0.6, 1])
            #expect(five.bell.url == "/audio/meditation/shared/bell" && (five.bell.durationMs ?? 0) > 3000)

            let twenty = try await client.send(.GET, "/api/meditation/plan?minutes=20&seed=7", auth: .cookie(ada)).decode(MeditationPlan.self)
            #expect(twenty.cues.count == 5)
            let again = try await client.send(.GET, "/api/meditation/plan?minutes=20&seed=7", auth: .cookie(ada)).decode(MeditationPlan.self)
            #expect(again == twenty)

            let bad = try await client.send(.GET, "/api/meditation/plan?minutes=7", auth: .cookie(ada))
            #expect(bad.status == .badRequest && bad.error?.message.contains("no 7-minute variant") == true)
            #expect(try await client.send(.GET, "/api/meditation/plan?minutes=5").status == .unauthorized)
        }
    }

    @Test("a plan's sound is the whole session as one file: each cue at its time, silence between, the bell at the end")
    func wholeSession() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let plan = try await client.send(.GET, "/api/meditation/plan?session=basic-breathing&minutes=5&seed=42", auth: .cookie(ada))
                .decode(MeditationPlan.self)
            #expect(plan.sound.url == "/api/meditation/plan/audio?session=basic-breathing&minutes=5&seed=42")
            let bellMs = try #require(plan.bell.durationMs)
            #expect(plan.sound.durationMs == 300_000 + bellMs)
            let reply = try await client.send(.GET, plan.sound.url, auth: .cookie(ada))
            #expect(reply.status == .ok && reply.headers.contentType?.description == "audio/mp4", "\(reply.text.prefix(200))")
            let file = scratchFile("session.m4a")
            try reply.bytes.write(to: file)
            let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-ar", "8000", "-f", "wav", "-"], nil)
            let heard = try WAVFile.decode(wav.output)
            #expect(abs(heard.duration - Double(plan.sound.durationMs!) / 1000) < 0.1, "lasts \(heard.duration) s")
            func level(_ from: Double, _ seconds: Double) -> Double {
                let first = AudioBuffer.sampleCount(from, 8000), count = AudioBuffer.sampleCount(seconds, 8000)
                return decibels(heard.rms(first..<min(heard.samples.count, first + count)))
            }
            // Each cue sounds from its moment (not before), and the stretch before the next is silent.
            for (cue, next) in zip(plan.cues, plan.cues.dropFirst().map(\.atSeconds) + [300]) {
                let length = Double(cue.audio.durationMs ?? 0) / 1000
                #expect(level(cue.atSeconds, min(0.5, length)) > -50, "cue at \(cue.atSeconds)")
                if cue.atSeconds >= 0.5 { #expect(level(cue.atSeconds - 0.5, 0.45) < -70, "before the cue at \(cue.atSeconds)") }
                if cue.atSeconds + length + 1 < next { #expect(level(cue.atSeconds + length + 0.2, 0.6) < -70, "after the cue at \(cue.atSeconds)") }
            }
            // The bell rings at the session's end, not before.
            #expect(level(299.4, 0.5) < -70 && level(300, 0.5) > -40)
            // Range works, and the same plan is answered from the file made.
            let part = try await client.send(.GET, plan.sound.url, auth: .cookie(ada), headers: ["Range": "bytes=0-99"])
            #expect(part.status == .partialContent && part.bytes == reply.bytes.prefix(100))
            #expect(try await client.send(.GET, "/api/meditation/plan/audio?session=basic-breathing&minutes=5", auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.GET, "/api/meditation/plan/audio?session=nope&minutes=5&seed=1", auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.GET, plan.sound.url).status == .unauthorized)
        }
    }

    @Test("the next session of each length is made ahead: the next plan asked without a seed is that one, its sound made before anyone asks for it")
    func madeAhead() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let ada = try await client.setUpOwner()
            let audio = client.app.meditationAudio
            func plan(_ minutes: Int, seed: Int? = nil) async throws -> MeditationPlan {
                try await client.send(.GET, "/api/meditation/plan?session=basic-breathing&minutes=\(minutes)" + (seed.map { "&seed=\($0)" } ?? ""),
                                      auth: .cookie(ada)).decode(MeditationPlan.self)
            }
            let first = try await plan(5)
            let next = try #require(await audio.seedAhead("basic-breathing/5"), "no session of 5 minutes made ahead")
            #expect(await audio.seedAhead("basic-breathing/10") == nil)
            try await eventually("the session ahead made") { await audio.isMade(session: "basic-breathing", minutes: 5, seed: next) ? true : nil }
            // A plan of a seed of its own leaves the one ahead where it is.
            #expect(try await plan(5, seed: 42).seed == 42)
            #expect(await audio.seedAhead("basic-breathing/5") == next)
            // The next plan is the one made ahead: its sound is there before the player asks.
            let second = try await plan(5)
            #expect(second.seed == next && second.seed != first.seed)
            #expect(await audio.isMade(session: "basic-breathing", minutes: 5, seed: second.seed))
            #expect(try await client.send(.GET, second.sound.url, auth: .cookie(ada)).status == .ok)
            // And another is made ahead for the plan after.
            let after = try #require(await audio.seedAhead("basic-breathing/5"))
            #expect(after != next)
        }
    }

    @Test("with Piper, the welcome and the closing are 20 to 40 seconds of speech, a reminder 4 to 15")
    func realNarration() async throws {
        let engines = await SpeechEngines.installed()
        // The figure is Piper's: without it (eSpeak NG alone) this test would measure another voice.
        try #require(engines.names.first == "piper", "Piper is not installed (scripts/bootstrap.sh installs it); engines: \(engines.names)")
        try await withTestApp(.sqlite, speech: engines) { client in
            let ada = try await client.setUpOwner()
            let plan = try await client.send(.GET, "/api/meditation/plan?minutes=5", auth: .cookie(ada)).decode(MeditationPlan.self)
            #expect(plan.cues.count == 3)
            for cue in plan.cues {
                let seconds = Double(cue.audio.durationMs ?? 0) / 1000
                let expected: ClosedRange<Double> = cue.audio.audioFile.contains("/reminder-") ? 4...15 : 20...40
                #expect(expected.contains(seconds), "\(cue.audio.audioFile): \(seconds) s")
            }
        }
        await engines.shutdown()
    }

    @Test("the seed's asset paths serve audio: narration spoken, the bell synthesized, a second of silence")
    func files() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let manifest = try await client.send(.GET, "/audio/meditation/meditation.json")
            #expect(manifest.status == .ok && manifest.text.contains("\"basic-breathing\""))
            for path in ["sessions/basic-breathing/intro-welcome", "sessions/basic-breathing/closing", "shared/bell", "shared/silence-1s"] {
                let reply = try await client.send(.GET, "/audio/meditation/\(path)")
                #expect(reply.status == .ok, "\(path): \(reply.text.prefix(200))")
                #expect(reply.headers.first(name: .contentType) == "audio/mp4")
                #expect(reply.text.utf8.count > 1000)
            }
            let part = try await client.send(.GET, "/audio/meditation/shared/bell", headers: ["Range": "bytes=0-9"])
            #expect(part.status == .partialContent)
            let unknown = try await client.send(.GET, "/audio/meditation/sessions/basic-breathing/nope")
            #expect(unknown.status == .notFound && unknown.error?.code == "not_found", "\(unknown.status) \(unknown.text)")
        }
        try await withTestApp(.sqlite) { client in
            // No speech engine: the narration says why; the bell still rings.
            let narration = try await client.send(.GET, "/audio/meditation/sessions/basic-breathing/closing")
            #expect(narration.status == .serviceUnavailable && narration.error?.code == "speech_unavailable")
            #expect(try await client.send(.GET, "/audio/meditation/shared/bell").status == .ok)
        }
    }
}
