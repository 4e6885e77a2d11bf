/// The Leaf/Masks button: a three-state content mode (Off → Meditation → Poetry → Off) and where
/// playback stands, as the seed's TextToSpeechManager and ExpandingView run it.
///
/// - An idle tap moves to the next mode and starts a random piece of it (Off starts nothing).
/// - From meditation, a tap stops it, shows the pulsing three dots through a 1.5 s gap, then
///   starts a random poem; from poetry, a tap stops and goes Off.
/// - A tap while a piece is starting is the person's last wish: Off at once, silencing what was on
///   its way, and the next tap starts again (issue 31: a render takes seconds, and a tap ignored
///   for that long is a tap that does not work).
/// - While stopping or in the gap, taps do nothing: rapid tapping cannot break it.
/// - A piece stopped by hand clears `contentCompleted` (the wake greeting's flag); a piece played
///   to its end sets it.
/// - On open, a saved Meditation or Poetry starts a new piece; a saved Off stays Off (the seed's
///   `restoreLastSession` restarted `lastContentMode` even after Off; this does not).
///
/// The cases in `Tests/Shared/bedside-mode-cases.json` say what it answers; the browser's twin
/// (`Web/bedside/mode.js`, run by `e2e/test_bedside.py`) is held to the same file: one truth for both.
public struct ContentModeMachine: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable, Codable {
        case off
        case meditation
        case poetry

        /// Off → Meditation → Poetry → Off.
        public var next: Mode {
            switch self {
            case .off: .meditation
            case .meditation: .poetry
            case .poetry: .off
            }
        }

        /// The kind of piece this mode plays.
        public var kind: BedsidePiece.Kind? {
            switch self {
            case .off: nil
            case .meditation: .meditation
            case .poetry: .poem
            }
        }
    }

    public enum Phase: String, Sendable, CaseIterable, Codable {
        /// Nothing playing (Off, or a piece ended, or the browser refused to start sound).
        case idle
        /// A piece was asked for and has not begun.
        case starting
        case playing
        /// A stop was asked for and has not finished.
        case stopping
        /// The 1.5 s between a meditation and the poem after it.
        case gap
    }

    public enum Event: String, Sendable, CaseIterable, Codable {
        /// The Leaf/Masks button.
        case tap
        /// The "Tap to continue" button, after the browser refused to start sound.
        case continueTapped
        /// The piece began to sound.
        case started
        /// The browser wants a gesture before it plays sound.
        case refused
        /// The piece could not be made or played.
        case failed
        /// The piece played to its end.
        case finished
        /// A stop finished.
        case stopped
        /// The gap after a meditation is over.
        case gapElapsed
        /// Another room was chosen.
        case roomChanged
        /// The alarm began to ring: the night's content ends, and the mode goes Off.
        case alarmRang
    }

    public enum Effect: Equatable, Sendable, CustomStringConvertible {
        /// Start a random piece of the mode's kind.
        case start(Mode)
        /// Fade out what plays, then send `stopped`.
        case stop
        /// Stop everything sounding at once, without a fade and without `stopped`; the piece on
        /// its way never plays by itself.
        case silence
        /// Wait `gapSeconds`, then send `gapElapsed`.
        case waitGap
        /// Save `contentMode` (and `lastContentMode` when it is not Off).
        case save(Mode)
        /// `contentCompletedSuccessfully` on.
        case markCompleted
        /// `contentCompletedSuccessfully` off.
        case clearCompleted

        public var description: String {
            switch self {
            case let .start(mode): "start \(mode.rawValue)"
            case .stop: "stop"
            case .silence: "silence"
            case .waitGap: "wait gap"
            case let .save(mode): "save \(mode.rawValue)"
            case .markCompleted: "mark completed"
            case .clearCompleted: "clear completed"
            }
        }
    }

    /// What the button shows.
    public enum Icon: String, Sendable, Codable {
        /// Grey outlined leaf: Off, or Meditation with nothing playing.
        case leafOutline
        /// Green filled leaf.
        case leafFilled
        /// Grey outlined masks: Poetry with nothing playing.
        case masksOutline
        /// Purple filled masks.
        case masksFilled
        /// Three pulsing dots: on the way from meditation to poetry.
        case dots
    }

    /// The seed's gap between a meditation and the poem after it.
    public static let gapSeconds = 1.5

    public private(set) var mode: Mode
    public private(set) var phase: Phase
    /// Where a stop leads: `.poetry` through the gap, or `.off`.
    public private(set) var afterStop: Mode?
    /// The browser refused to start sound: one button offers "Tap to continue".
    public private(set) var needsGesture: Bool

    /// Off, nothing playing.
    public init() {
        self.init(mode: .off, phase: .idle, afterStop: nil, needsGesture: false)
    }

    init(mode: Mode, phase: Phase, afterStop: Mode?, needsGesture: Bool) {
        self.mode = mode
        self.phase = phase
        self.afterStop = afterStop
        self.needsGesture = needsGesture
    }

    /// The screen opened with `saved` as the person's `contentMode`: a new random piece of it
    /// starts, or nothing when it was Off.
    public static func opened(saved: Mode) -> (machine: ContentModeMachine, effects: [Effect]) {
        guard saved != .off else { return (ContentModeMachine(), []) }
        return (ContentModeMachine(mode: saved, phase: .starting, afterStop: nil, needsGesture: false), [.start(saved)])
    }

    public var icon: Icon {
        if afterStop == .poetry { return .dots }
        let sounding = phase == .starting || phase == .playing
        switch mode {
        case .off: return .leafOutline
        case .meditation: return sounding ? .leafFilled : .leafOutline
        case .poetry: return sounding ? .masksFilled : .masksOutline
        }
    }

    /// Whether a piece is on its way or going: taps while stopping or in the gap do nothing, and a
    /// tap while starting turns it Off at once.
    public var isBusy: Bool { phase == .starting || phase == .stopping || phase == .gap }

    /// Moves on `event`; returns what to do. An event that does not apply changes nothing.
    public mutating func handle(_ event: Event) -> [Effect] {
        switch (phase, event) {
        case (.idle, .tap):
            needsGesture = false
            mode = mode.next
            guard mode != .off else { return [.save(.off)] }
            phase = .starting
            return [.save(mode), .start(mode)]
        case (.idle, .continueTapped) where needsGesture && mode != .off:
            needsGesture = false
            phase = .starting
            return [.start(mode)]
        case (.starting, .started):
            phase = .playing
            return []
        case (.starting, .tap):
            // The person changed their mind before it sounded: Off at once, stopped by hand.
            mode = .off
            phase = .idle
            return [.silence, .clearCompleted, .save(.off)]
        case (.starting, .refused):
            phase = .idle
            needsGesture = true
            return []
        case (.starting, .failed), (.playing, .failed):
            phase = .idle
            return []
        case (.playing, .tap):
            phase = .stopping
            afterStop = mode == .meditation ? .poetry : .off
            return [.stop, .clearCompleted]
        case (.playing, .finished):
            phase = .idle
            return [.markCompleted]
        case (.playing, .roomChanged):
            phase = .starting
            return [.clearCompleted, .start(mode)]
        case (.stopping, .stopped):
            if afterStop == .poetry {
                phase = .gap
                return [.waitGap]
            }
            afterStop = nil
            mode = .off
            phase = .idle
            return [.save(.off)]
        case (.starting, .alarmRang), (.playing, .alarmRang):
            // Not stopped by hand: the greeting's flag stays as it is.
            phase = .stopping
            afterStop = .off
            return [.stop]
        case (.stopping, .alarmRang):
            afterStop = .off
            return []
        case (.gap, .alarmRang):
            afterStop = nil
            mode = .off
            phase = .idle
            return [.save(.off)]
        case (.idle, .alarmRang) where mode != .off:
            needsGesture = false
            mode = .off
            return [.save(.off)]
        case (.gap, .gapElapsed):
            afterStop = nil
            mode = .poetry
            phase = .starting
            return [.save(.poetry), .start(.poetry)]
        default:
            return []
        }
    }
}
