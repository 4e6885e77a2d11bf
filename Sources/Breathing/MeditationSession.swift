import Foundation

/// Where a session is.
public enum MeditationStatus: String, Codable, Sendable {
    case idle, active, paused, complete, endedEarly
}

/// What is saved on every start, pause and resume (the seed's `MeditationSessionPersisted`,
/// stored by the web app as `meditation-session-state`), so a session survives a crash or reload.
public struct MeditationSessionPersisted: Codable, Sendable, Equatable {
    public var status: MeditationStatus
    public var sessionType: String
    public var durationMinutes: Int
    public var sessionStartedAt: Date?
    public var pausedAt: Date?
    /// Seconds spent paused before the current pause (so elapsed = now − start − pausedElapsed).
    public var pausedElapsed: TimeInterval
    public var scheduledCues: [ScheduledCue]
    public var currentPhaseIndex: Int
    /// When this state was saved; recovery is offered for an hour after it.
    public var savedAt: Date?

    public init(status: MeditationStatus = .idle, sessionType: String, durationMinutes: Int, sessionStartedAt: Date? = nil,
                pausedAt: Date? = nil, pausedElapsed: TimeInterval = 0, scheduledCues: [ScheduledCue] = [],
                currentPhaseIndex: Int = 0, savedAt: Date? = nil) {
        self.status = status
        self.sessionType = sessionType
        self.durationMinutes = durationMinutes
        self.sessionStartedAt = sessionStartedAt
        self.pausedAt = pausedAt
        self.pausedElapsed = pausedElapsed
        self.scheduledCues = scheduledCues
        self.currentPhaseIndex = currentPhaseIndex
        self.savedAt = savedAt
    }
}

/// A finished session, complete or ended early: what the history records.
public struct MeditationRecord: Codable, Sendable, Equatable {
    public var sessionType: String
    public var startedAt: Date
    public var completedAt: Date
    public var plannedDurationSeconds: Int
    public var actualDurationSeconds: Int
    public var completedFully: Bool
}

/// The session machine: idle → active ⇄ paused → complete | ended early.
///
/// Time is never counted in ticks: every answer is computed from the timestamps in the state and
/// the `now` passed in, so a tab that slept or a phone that was locked is right at once.
public struct MeditationRun: Sendable, Equatable {
    /// Recovery is offered when the saved state is younger than this (seconds).
    public static let staleAfter: TimeInterval = 60 * 60
    /// A pause longer than this ends the session (seconds).
    public static let pauseTimeout: TimeInterval = 30 * 60
    /// A cue (or the bell) found more than this late — the device was asleep — is skipped, not played.
    public static let lateTolerance: TimeInterval = 5

    /// What happened since the last call, for the player to act on.
    public enum Event: Sendable, Equatable {
        case phaseChanged(index: Int, type: MeditationManifest.PhaseType)
        case playCue(String)
        case skippedCue(String)
        case playBell
        case completed(MeditationRecord)
        case endedEarly(MeditationRecord, pauseTimedOut: Bool)
    }

    public private(set) var state: MeditationSessionPersisted
    public let variant: MeditationManifest.Variant

    /// A new session, not started yet.
    public init(sessionType: String, variant: MeditationManifest.Variant, cues: [ScheduledCue]) {
        self.variant = variant
        state = MeditationSessionPersisted(sessionType: sessionType, durationMinutes: variant.durationMinutes, scheduledCues: cues)
    }

    init(state: MeditationSessionPersisted, variant: MeditationManifest.Variant) {
        self.state = state
        self.variant = variant
    }

    public var totalSeconds: Double { Double(variant.totalSeconds) }

    /// Seconds of meditation so far (pauses excluded), at most the session's length.
    public func elapsed(at now: Date) -> Double {
        guard let started = state.sessionStartedAt else { return 0 }
        let end: Date = switch state.status {
        case .paused: state.pausedAt ?? now
        default: now
        }
        return min(totalSeconds, max(0, end.timeIntervalSince(started) - state.pausedElapsed))
    }

    public func remaining(at now: Date) -> Double { totalSeconds - elapsed(at: now) }

    // MARK: - Transitions

    /// Starts the session; returns the first events (the first phase and any cue at 0).
    public mutating func start(at now: Date) -> [Event] {
        guard state.status == .idle else { return [] }
        state.status = .active
        state.sessionStartedAt = now
        state.currentPhaseIndex = 0
        state.savedAt = now
        var events: [Event] = [.phaseChanged(index: 0, type: variant.phases.first?.type ?? .breathing)]
        events += tick(at: now)
        return events
    }

    /// Pauses an active session. Returns false when it was not active.
    @discardableResult
    public mutating func pause(at now: Date) -> Bool {
        guard state.status == .active else { return false }
        state.status = .paused
        state.pausedAt = now
        state.savedAt = now
        return true
    }

    /// Resumes a paused session, unless the pause ran past the timeout (then the session ends:
    /// see `tick`). Returns false when it was not paused.
    @discardableResult
    public mutating func resume(at now: Date) -> Bool {
        guard state.status == .paused, let pausedAt = state.pausedAt else { return false }
        guard now.timeIntervalSince(pausedAt) < Self.pauseTimeout else { return false }
        state.pausedElapsed += now.timeIntervalSince(pausedAt)
        state.pausedAt = nil
        state.status = .active
        state.savedAt = now
        return true
    }

    /// Ends the session before its time: a partial record, no bell, no more cues.
    public mutating func endEarly(at now: Date) -> MeditationRecord? {
        guard state.status == .active || state.status == .paused else { return nil }
        let record = self.record(elapsed: elapsed(at: now), endedAt: state.status == .paused ? (state.pausedAt ?? now) : now, fully: false)
        state.status = .endedEarly
        state.savedAt = now
        return record
    }

    /// Brings the session up to `now`: phase changes, cues that are due (in order), the pause
    /// timeout, and completion with the bell.
    public mutating func tick(at now: Date) -> [Event] {
        switch state.status {
        case .paused:
            guard let pausedAt = state.pausedAt, now.timeIntervalSince(pausedAt) >= Self.pauseTimeout else { return [] }
            let record = record(elapsed: elapsed(at: now), endedAt: pausedAt, fully: false)
            state.status = .endedEarly
            state.savedAt = now
            return [.endedEarly(record, pauseTimedOut: true)]
        case .active:
            break
        default:
            return []
        }
        var events: [Event] = []
        let elapsed = elapsed(at: now)
        let phase = variant.phaseIndex(at: elapsed)
        if phase != state.currentPhaseIndex {
            state.currentPhaseIndex = phase
            events.append(.phaseChanged(index: phase, type: variant.phases[phase].type))
        }
        for index in state.scheduledCues.indices where !state.scheduledCues[index].played && state.scheduledCues[index].atSeconds <= elapsed {
            state.scheduledCues[index].played = true
            let cue = state.scheduledCues[index]
            let late = realElapsed(at: now) - cue.atSeconds
            events.append(late <= Self.lateTolerance ? .playCue(cue.audioFile) : .skippedCue(cue.audioFile))
        }
        if elapsed >= totalSeconds {
            let started = state.sessionStartedAt ?? now
            let end = started.addingTimeInterval(state.pausedElapsed + totalSeconds)
            state.status = .complete
            state.savedAt = now
            if now.timeIntervalSince(end) <= Self.lateTolerance { events.append(.playBell) }
            events.append(.completed(record(elapsed: totalSeconds, endedAt: end, fully: true)))
        }
        return events
    }

    /// Elapsed without the cap at the session's length (how late something is found).
    private func realElapsed(at now: Date) -> Double {
        guard let started = state.sessionStartedAt else { return 0 }
        return now.timeIntervalSince(started) - state.pausedElapsed
    }

    private func record(elapsed: Double, endedAt: Date, fully: Bool) -> MeditationRecord {
        MeditationRecord(sessionType: state.sessionType, startedAt: state.sessionStartedAt ?? endedAt, completedAt: endedAt,
                         plannedDurationSeconds: variant.totalSeconds, actualDurationSeconds: Int(elapsed.rounded()), completedFully: fully)
    }

    // MARK: - Recovery

    /// The session saved in `saved`, if it can still be resumed: it was active or paused, and was
    /// saved less than an hour before `now`. Cues keep their `played` flags. Stale or finished
    /// state gives nil and should be discarded silently.
    public static func recover(_ saved: MeditationSessionPersisted, variant: MeditationManifest.Variant, at now: Date) -> MeditationRun? {
        guard saved.status == .active || saved.status == .paused,
              saved.durationMinutes == variant.durationMinutes,
              let savedAt = saved.savedAt ?? saved.pausedAt ?? saved.sessionStartedAt,
              now.timeIntervalSince(savedAt) < staleAfter, now >= savedAt else { return nil }
        return MeditationRun(state: saved, variant: variant)
    }
}
