import Foundation

/// Where a session is.
public enum MeditationStatus: String, Codable, Sendable {
    case idle, active, paused, complete, endedEarly
}

/// What is saved on every change and as the sound's position advances (the seed's
/// `MeditationSessionPersisted`, stored by the web app as `meditation-session-state`), so a session
/// survives a crash or reload and resumes where its sound stopped.
public struct MeditationSessionPersisted: Codable, Sendable, Equatable {
    public var status: MeditationStatus
    public var sessionType: String
    public var durationMinutes: Int
    public var sessionStartedAt: Date?
    public var pausedAt: Date?
    /// Seconds of the session's sound heard: the furthest position it reached. This is the time
    /// meditated (elapsed), never the wall-clock time since the start.
    public var heardSeconds: Double
    public var currentPhaseIndex: Int
    /// When this state was saved, which is when the sound was at `heardSeconds` while the session
    /// was active; recovery is offered for an hour after it.
    public var savedAt: Date?

    public init(status: MeditationStatus = .idle, sessionType: String, durationMinutes: Int, sessionStartedAt: Date? = nil,
                pausedAt: Date? = nil, heardSeconds: Double = 0, currentPhaseIndex: Int = 0, savedAt: Date? = nil) {
        self.status = status
        self.sessionType = sessionType
        self.durationMinutes = durationMinutes
        self.sessionStartedAt = sessionStartedAt
        self.pausedAt = pausedAt
        self.heardSeconds = heardSeconds
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
/// A session is one sound (the plan's `sound`: every cue at its time, silence between, the bell at
/// the end), and its time is where that sound has got to: `tick`, `pause` and `endEarly` are given
/// the sound's position (seconds into it), and elapsed is the furthest position heard. The `now`
/// passed in (wall-clock time) only dates the record and measures a pause against its 30 minutes
/// and the saved state against its hour; it never counts as meditated. So a phone whose scripts
/// were stopped while the sound played on is right at once, and time away from a closed app is
/// not credited.
public struct MeditationRun: Sendable, Equatable {
    /// Recovery is offered when the saved state is younger than this (seconds).
    public static let staleAfter: TimeInterval = 60 * 60
    /// A pause longer than this ends the session (seconds).
    public static let pauseTimeout: TimeInterval = 30 * 60

    /// What happened since the last call, for the screen to act on.
    public enum Event: Sendable, Equatable {
        case phaseChanged(index: Int, type: MeditationManifest.PhaseType)
        case completed(MeditationRecord)
        case endedEarly(MeditationRecord, pauseTimedOut: Bool)
    }

    public private(set) var state: MeditationSessionPersisted
    public let variant: MeditationManifest.Variant

    /// A new session, not started yet.
    public init(sessionType: String, variant: MeditationManifest.Variant) {
        self.variant = variant
        state = MeditationSessionPersisted(sessionType: sessionType, durationMinutes: variant.durationMinutes)
    }

    init(state: MeditationSessionPersisted, variant: MeditationManifest.Variant) {
        self.state = state
        self.variant = variant
    }

    public var totalSeconds: Double { Double(variant.totalSeconds) }

    /// Seconds of meditation so far: the furthest position of the sound heard, at most the session's length.
    public var elapsed: Double { min(totalSeconds, state.heardSeconds) }

    /// Seconds of the session still to come.
    public var remaining: Double { totalSeconds - elapsed }

    // MARK: - Transitions

    /// Starts the session at the sound's beginning; returns the first phase.
    public mutating func start(at now: Date) -> [Event] {
        guard state.status == .idle else { return [] }
        state.status = .active
        state.sessionStartedAt = now
        state.heardSeconds = 0
        state.currentPhaseIndex = 0
        state.savedAt = now
        return [.phaseChanged(index: 0, type: variant.phases.first?.type ?? .breathing)]
    }

    /// Pauses an active session with its sound at `position` (seconds). Returns false when it was
    /// not active, or when the sound is at or past the end (the next `tick` completes it).
    @discardableResult
    public mutating func pause(at now: Date, position: Double) -> Bool {
        guard state.status == .active, max(state.heardSeconds, position) < totalSeconds else { return false }
        hear(position, at: now)
        state.status = .paused
        state.pausedAt = now
        return true
    }

    /// Resumes a paused session, unless the pause ran past the timeout (then the session ends:
    /// see `tick`). Returns false when it was not paused. The sound goes on from the position it
    /// paused at.
    @discardableResult
    public mutating func resume(at now: Date) -> Bool {
        guard state.status == .paused, let pausedAt = state.pausedAt else { return false }
        guard now.timeIntervalSince(pausedAt) < Self.pauseTimeout else { return false }
        state.pausedAt = nil
        state.status = .active
        state.savedAt = now
        return true
    }

    /// Ends the session before its time with its sound at `position`: a partial record of what was
    /// heard. A paused session's sound stood still, so its record ends at the pause.
    public mutating func endEarly(at now: Date, position: Double) -> MeditationRecord? {
        guard state.status == .active || state.status == .paused else { return nil }
        let paused = state.status == .paused
        if !paused { hear(position, at: now) }
        let record = self.record(elapsed: elapsed, endedAt: paused ? (state.pausedAt ?? now) : now, fully: false)
        state.status = .endedEarly
        state.savedAt = now
        return record
    }

    /// Brings the session up to `now`, when its sound is at `position` (seconds): phase changes,
    /// the pause timeout, and completion once the sound reaches the end.
    public mutating func tick(at now: Date, position: Double) -> [Event] {
        switch state.status {
        case .paused:
            guard let pausedAt = state.pausedAt, now.timeIntervalSince(pausedAt) >= Self.pauseTimeout else { return [] }
            let record = record(elapsed: elapsed, endedAt: pausedAt, fully: false)
            state.status = .endedEarly
            state.savedAt = now
            return [.endedEarly(record, pauseTimedOut: true)]
        case .active:
            break
        default:
            return []
        }
        // The end is dated when the sound reached it: from the last place heard going on without a
        // stop, and no later than the position now allows (the sound went past the end since).
        let started = state.sessionStartedAt ?? now
        let past = position.isFinite ? max(0, position - totalSeconds) : 0
        let fromLastHeard = (state.savedAt ?? now).addingTimeInterval(totalSeconds - state.heardSeconds)
        let end = max(started, min(fromLastHeard, now.addingTimeInterval(-past)))
        hear(position, at: now)
        var events: [Event] = []
        let phase = variant.phaseIndex(at: elapsed)
        if phase != state.currentPhaseIndex {
            state.currentPhaseIndex = phase
            events.append(.phaseChanged(index: phase, type: variant.phases[phase].type))
        }
        if elapsed >= totalSeconds {
            state.status = .complete
            events.append(.completed(record(elapsed: totalSeconds, endedAt: end, fully: true)))
        }
        return events
    }

    /// The heard position moves forward only: a reloaded sound at 0, before its seek to the saved
    /// place, does not take back what was heard. `now` is when the sound was at `position`.
    private mutating func hear(_ position: Double, at now: Date) {
        if position.isFinite, position > state.heardSeconds { state.heardSeconds = position }
        state.savedAt = now
    }

    private func record(elapsed: Double, endedAt: Date, fully: Bool) -> MeditationRecord {
        MeditationRecord(sessionType: state.sessionType, startedAt: state.sessionStartedAt ?? endedAt, completedAt: endedAt,
                         plannedDurationSeconds: variant.totalSeconds, actualDurationSeconds: Int(elapsed.rounded()), completedFully: fully)
    }

    // MARK: - Recovery

    /// The session saved in `saved`, if it can still be resumed: it was active or paused, and was
    /// saved less than an hour before `now`. Its elapsed is the position its sound had reached,
    /// from where it resumes: the time away is not counted. Stale or finished state gives nil and
    /// should be discarded silently.
    public static func recover(_ saved: MeditationSessionPersisted, variant: MeditationManifest.Variant, at now: Date) -> MeditationRun? {
        guard saved.status == .active || saved.status == .paused,
              saved.durationMinutes == variant.durationMinutes,
              let savedAt = saved.savedAt ?? saved.pausedAt ?? saved.sessionStartedAt,
              now.timeIntervalSince(savedAt) < staleAfter, now >= savedAt else { return nil }
        return MeditationRun(state: saved, variant: variant)
    }
}
