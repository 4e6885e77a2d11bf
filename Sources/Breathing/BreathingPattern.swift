import Foundation

/// A breathing rhythm: steps of inhale, hold, exhale and rest, each with a length and the circle's
/// size and brightness at its start and end. Patterns are data: 4-2-6-2 (the default), 4-7-8 and
/// box breathing are values of this one type.
public struct BreathingPattern: Codable, Sendable, Equatable, Identifiable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case inhale, hold, exhale, rest

        /// The word shown and announced during the step.
        public var word: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    /// One step with its keyframes (values at the step's start and end).
    public struct Step: Codable, Sendable, Equatable {
        public var kind: Kind
        public var seconds: Double
        public var scaleFrom: Double
        public var scaleTo: Double
        public var opacityFrom: Double
        public var opacityTo: Double

        public init(kind: Kind, seconds: Double, scaleFrom: Double, scaleTo: Double, opacityFrom: Double, opacityTo: Double) {
            self.kind = kind
            self.seconds = seconds
            self.scaleFrom = scaleFrom
            self.scaleTo = scaleTo
            self.opacityFrom = opacityFrom
            self.opacityTo = opacityTo
        }
    }

    public var id: String
    public var name: String
    public var steps: [Step]

    public init(id: String, name: String, steps: [Step]) {
        self.id = id
        self.name = name
        self.steps = steps
    }

    /// A pattern from step lengths, with the circle's keyframes: it grows from 1 to 1.8 and
    /// brightens from 0.6 to 1.0 while breathing in, stays while holding, shrinks and dims while
    /// breathing out, and stays small while resting.
    public init(id: String, name: String, _ lengths: [(Kind, Double)]) {
        self.init(id: id, name: name, steps: lengths.map { kind, seconds in
            switch kind {
            case .inhale: Step(kind: kind, seconds: seconds, scaleFrom: Self.small, scaleTo: Self.large, opacityFrom: Self.dim, opacityTo: Self.bright)
            case .hold: Step(kind: kind, seconds: seconds, scaleFrom: Self.large, scaleTo: Self.large, opacityFrom: Self.bright, opacityTo: Self.bright)
            case .exhale: Step(kind: kind, seconds: seconds, scaleFrom: Self.large, scaleTo: Self.small, opacityFrom: Self.bright, opacityTo: Self.dim)
            case .rest: Step(kind: kind, seconds: seconds, scaleFrom: Self.small, scaleTo: Self.small, opacityFrom: Self.dim, opacityTo: Self.dim)
            }
        })
    }

    static let small = 1.0, large = 1.8, dim = 0.6, bright = 1.0

    /// 4-2-6-2: in 4 s, hold 2 s, out 6 s, rest 2 s; a 14-second cycle. The default.
    public static let calm = BreathingPattern(id: "4-2-6-2", name: "Calm", [(.inhale, 4), (.hold, 2), (.exhale, 6), (.rest, 2)])
    /// 4-7-8: in 4 s, hold 7 s, out 8 s.
    public static let relaxing = BreathingPattern(id: "4-7-8", name: "Relaxing", [(.inhale, 4), (.hold, 7), (.exhale, 8)])
    /// Box: in, hold, out, hold, 4 s each.
    public static let box = BreathingPattern(id: "box", name: "Box", [(.inhale, 4), (.hold, 4), (.exhale, 4), (.rest, 4)])

    public static let all = [calm, relaxing, box]

    /// Length of one full cycle in seconds.
    public var cycleSeconds: Double { steps.reduce(0) { $0 + $1.seconds } }

    /// Where the breath is `elapsed` seconds into the breathing.
    public func state(at elapsed: Double) -> BreathingState {
        let cycle = cycleSeconds
        guard cycle > 0, !steps.isEmpty else { return BreathingState(kind: .rest, stepIndex: 0, cycle: 0, progress: 0, scale: Self.small, opacity: Self.dim) }
        let clamped = max(0, elapsed)
        let count = Int((clamped / cycle).rounded(.down))
        var within = clamped - Double(count) * cycle
        for (index, step) in steps.enumerated() {
            if within < step.seconds || index == steps.count - 1 {
                let progress = step.seconds > 0 ? min(1, within / step.seconds) : 1
                let eased = Self.ease(progress)
                return BreathingState(kind: step.kind, stepIndex: index, cycle: count, progress: progress,
                                      scale: step.scaleFrom + (step.scaleTo - step.scaleFrom) * eased,
                                      opacity: step.opacityFrom + (step.opacityTo - step.opacityFrom) * eased)
            }
            within -= step.seconds
        }
        preconditionFailure("unreachable: the last step always matches")
    }

    /// Sine ease-in-out: a breath starts and ends gently. 0 → 0, 0.5 → 0.5, 1 → 1.
    public static func ease(_ t: Double) -> Double { (1 - cos(Double.pi * min(1, max(0, t)))) / 2 }
}

/// The breath at one moment.
public struct BreathingState: Sendable, Equatable {
    public var kind: BreathingPattern.Kind
    public var stepIndex: Int
    /// Completed cycles before this one.
    public var cycle: Int
    /// 0…1 through the step, linear in time.
    public var progress: Double
    /// The circle's size (1 = resting) and opacity, eased between the step's keyframes.
    public var scale: Double
    public var opacity: Double
}
