import Breathing
import Foundation
import ReverieAPI
import Speech
import Vapor

extension MeditationSessionRecord: Content {}
extension MeditationStatsResponse: Content {}
extension MeditationPlan: Content {}

/// The meditation history (the seed's routes): save a finished session, the latest one, and
/// statistics with streaks.
struct MeditationController: RouteCollection {
    let meditationSessions: Store<any MeditationSessionRepository>
    let media: MediaFiles
    let now: @Sendable () -> Date
    let manifest: MeditationManifest
    let audio: MeditationAudio
    /// Longest session anyone could plan (the manifest's longest is 20 minutes).
    static let longestPlanned = 4 * 3600
    /// Seeds a plan accepts (and makes): the same seed gives the same cue schedule.
    static let seeds = 0...Int(Int32.max - 1)

    func boot(routes: any RoutesBuilder) throws {
        let sessions = routes.grouped("api", "meditation-sessions")
        sessions.post(use: create)
        sessions.get("latest", use: latest)
        sessions.get("stats", use: stats)

        routes.get("api", "meditation", "plan", use: plan)
        routes.get("api", "meditation", "plan", "audio", use: planAudio)
        // The seed's asset paths: the manifest and every file it names.
        let files = routes.grouped("audio", "meditation")
        files.get("meditation.json", use: manifestFile)
        files.get("sessions", ":session", ":cue") { req in
            try await self.audioFile(req, name: "sessions/\(req.parameters.get("session") ?? "")/\(req.parameters.get("cue") ?? "")")
        }
        files.get("shared", ":name") { req in
            try await self.audioFile(req, name: "shared/\(req.parameters.get("name") ?? "")")
        }
    }

    /// A session's plan: `?session=basic-breathing&minutes=5[&seed=N]`. Narration is made on
    /// first use (seconds with Piper), so the first plan of a server can take a moment. The plan's
    /// `sound` is the whole session as one file (`GET /api/meditation/plan/audio` with the same
    /// session, minutes and seed), which is what the player plays.
    func plan(req: Request) async throws -> MeditationPlan {
        let (session, minutes, variant, seed, asked, cues, lengths) = try await schedule(req, takingAhead: true)
        func described(_ file: String) -> MeditationPlan.Audio {
            MeditationPlan.Audio(audioFile: file, url: "/audio/meditation/\(file)", durationMs: lengths[file].map { Int(($0 * 1000).rounded()) })
        }
        let definition = manifest.sessions.first { $0.id == session }
        let bell = described(manifest.shared.bell)
        let whole = manifest.audioFiles.allSatisfy { lengths[$0] != nil }
        let sound = MeditationPlan.Audio(
            audioFile: "session", url: "/api/meditation/plan/audio?session=\(session)&minutes=\(minutes)&seed=\(seed)",
            durationMs: whole ? bell.durationMs.map { variant.totalSeconds * 1000 + $0 } : nil)
        // The player asks for the sound next: its making starts now, and that ask joins it (a
        // session made ahead is made already). A plan asked without a seed took the one made
        // ahead: the next plan's is made ahead now.
        if whole {
            Task { [audio] in _ = try? await audio.session(cues: cues, totalSeconds: variant.totalSeconds) }
        }
        if whole, !asked {
            let next = Int.random(in: Self.seeds)
            await audio.makeAhead("\(session)/\(minutes)", seed: next, cues: MeditationAudio.cues(variant, seed: next, lengths: lengths),
                                  totalSeconds: variant.totalSeconds)
        }
        return MeditationPlan(
            sessionType: session, name: definition?.name ?? session, durationMinutes: minutes, totalSeconds: variant.totalSeconds, seed: seed,
            phases: zip(variant.phases, variant.phaseStarts).map { phase, start in
                .init(type: phase.type.rawValue, title: phase.type.title, startSeconds: start, durationSeconds: phase.durationSeconds)
            },
            cues: cues.map { .init(atSeconds: $0.atSeconds, audio: described($0.audioFile)) },
            pattern: BreathingPattern.calm.steps.map(MeditationPlan.Step.init),
            bell: bell, silence: described(manifest.shared.silence), sound: sound,
            minimumCountedSeconds: MeditationStats.minimumCountedSeconds)
    }

    /// `GET /api/meditation/plan/audio?session=…&minutes=…&seed=…`: the plan's whole session as
    /// one file, the cues at their times and the bell at the end, with Range.
    func planAudio(req: Request) async throws -> Response {
        guard (try req.queryInteger("seed", in: Self.seeds)) != nil else {
            throw APIError(.badRequest, code: "invalid_field", "seed: say which plan (its seed) the sound is for.")
        }
        let (_, _, variant, _, _, cues, _) = try await schedule(req)
        do {
            let file = try await audio.session(cues: cues, totalSeconds: variant.totalSeconds)
            return try await media.serve(file.url.path, type: file.contentType, name: nil, for: req)
        } catch let error as SpeechError {
            throw error.answered(lead: "The narration cannot be spoken on this server")
        }
    }

    /// The session, length, variant, seed (and whether the request named it) and cue schedule a
    /// plan request names. Without a seed, `takingAhead` takes the one whose session was made
    /// ahead for the next plan, if any.
    private func schedule(_ req: Request, takingAhead: Bool = false) async throws
        -> (session: String, minutes: Int, variant: MeditationManifest.Variant, seed: Int, asked: Bool, cues: [ScheduledCue], lengths: [String: Double]) {
        _ = try req.user
        let session = try req.queryString("session", maximumLength: 100) ?? "basic-breathing"
        guard let minutes = try req.queryInteger("minutes", in: 1...Self.longestPlanned / 60) else {
            throw APIError(.badRequest, code: "invalid_field", "minutes: say how long the session lasts (5, 10 or 20).")
        }
        let variant: MeditationManifest.Variant
        do {
            variant = try manifest.variant(session: session, minutes: minutes)
        } catch {
            throw APIError(.badRequest, code: "invalid_field", "\(error.description)")
        }
        let asked = try req.queryInteger("seed", in: Self.seeds)
        let ahead = asked == nil && takingAhead ? await audio.takeAhead("\(session)/\(minutes)") : nil
        let seed = asked ?? ahead ?? Int.random(in: Self.seeds)
        let lengths = await audio.lengths()
        return (session, minutes, variant, seed, asked != nil, MeditationAudio.cues(variant, seed: seed, lengths: lengths), lengths)
    }

    func manifestFile(req: Request) async throws -> Response {
        let response = Response(status: .ok)
        try response.content.encode(manifest, as: .json)
        return response
    }

    /// One audio file of the manifest (AAC), made on first use; Range requests supported.
    private func audioFile(_ req: Request, name: String) async throws -> Response {
        do {
            let file = try await audio.file(name)
            return try await media.serve(file.url.path, type: file.contentType, name: nil, for: req)
        } catch MeditationAudio.Problem.unknown {
            throw APIError(.notFound, code: "not_found", "The meditation manifest names no audio file “\(name)”.")
        } catch let error as SpeechError {
            throw error.answered(lead: "The narration cannot be spoken on this server")
        }
    }

    /// 201 with the stored session; 200 with the same when this id was stored before.
    func create(req: Request) async throws -> Response {
        let user = try req.user
        let body = try req.content.decode(MeditationSessionRecord.self)
        try validate(body, now: now())
        let (stored, created) = try await meditationSessions.on(req).save(body, ownedBy: user)
        let response = Response(status: created ? .created : .ok)
        try response.content.encode(stored)
        return response
    }

    /// The session that ended last, or `null` before the first.
    func latest(req: Request) async throws -> Response {
        let session = try await meditationSessions.on(req).latest(ownedBy: req.user)
        let response = Response(status: .ok)
        if let session {
            try response.content.encode(session)
        } else {
            response.headers.contentType = .json
            response.body = .init(string: "null")
        }
        return response
    }

    /// Totals, streaks and this week's minutes; `?time_zone=Europe/Paris` says where the person's
    /// days begin (UTC when absent).
    func stats(req: Request) async throws -> MeditationStatsResponse {
        let user = try req.user
        let name = try req.queryString("time_zone", maximumLength: 100) ?? "UTC"
        guard let zone = TimeZone(identifier: name) else {
            throw APIError(.badRequest, code: "invalid_time_zone", "time_zone: “\(name)” is not a time zone name like Europe/Paris.")
        }
        let entries = try await meditationSessions.on(req).durations(ownedBy: user)
            .map { MeditationStats.Entry(completedAt: $0.completedAt, seconds: $0.seconds) }
        let stats = MeditationStats.compute(entries, timeZone: zone, now: now())
        return MeditationStatsResponse(totalSessions: stats.totalSessions, totalMinutes: stats.totalMinutes,
                                       currentStreak: stats.currentStreak, longestStreak: stats.longestStreak,
                                       minutesThisWeek: stats.minutesThisWeek, timeZone: name)
    }

    // MARK: - Helpers

    private func validate(_ body: MeditationSessionRecord, now: Date) throws {
        func invalid(_ field: String, _ message: String) -> APIError {
            APIError(.badRequest, code: "invalid_field", "\(field): \(message)")
        }
        guard manifest.sessions.contains(where: { $0.id == body.sessionType }) else {
            throw invalid("session_type", "there is no session “\(body.sessionType)”; known: \(manifest.sessions.map(\.id).joined(separator: ", ")).")
        }
        guard (1...Self.longestPlanned).contains(body.plannedDurationSeconds) else {
            throw invalid("planned_duration_seconds", "must be 1 to \(Self.longestPlanned) seconds.")
        }
        guard (0...body.plannedDurationSeconds).contains(body.actualDurationSeconds) else {
            throw invalid("actual_duration_seconds", "must be 0 to the planned \(body.plannedDurationSeconds) seconds.")
        }
        if body.completedFully && body.actualDurationSeconds != body.plannedDurationSeconds {
            throw invalid("actual_duration_seconds", "a session completed fully lasts its planned \(body.plannedDurationSeconds) seconds.")
        }
        guard body.completedAt >= body.startedAt else {
            throw invalid("completed_at", "is before started_at.")
        }
        guard Double(body.actualDurationSeconds) <= body.completedAt.timeIntervalSince(body.startedAt) + 2 else {
            throw invalid("actual_duration_seconds", "is longer than the time from started_at to completed_at.")
        }
        guard body.completedAt <= now.addingTimeInterval(24 * 3600) else {
            throw invalid("completed_at", "is in the future; check the device's clock.")
        }
    }
}
