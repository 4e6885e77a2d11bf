@testable import Breathing
import Foundation
import Testing

@Suite("Breathing pattern")
struct BreathingPatternTests {
    struct Expected: Sendable {
        var at: Double
        var kind: BreathingPattern.Kind
        var scale: Double
        var opacity: Double
    }

    /// The seed's keyframes at every boundary of two 4-2-6-2 cycles.
    static let boundaries: [Expected] = [
        Expected(at: 0, kind: .inhale, scale: 1, opacity: 0.6),
        Expected(at: 4, kind: .hold, scale: 1.8, opacity: 1),
        Expected(at: 6, kind: .exhale, scale: 1.8, opacity: 1),
        Expected(at: 12, kind: .rest, scale: 1, opacity: 0.6),
        Expected(at: 14, kind: .inhale, scale: 1, opacity: 0.6),
        Expected(at: 18, kind: .hold, scale: 1.8, opacity: 1),
        Expected(at: 28, kind: .inhale, scale: 1, opacity: 0.6),
    ]

    @Test("4-2-6-2 is a 14-second cycle with the seed's keyframes at each step's start", arguments: boundaries)
    func keyframes(_ expected: Expected) {
        let state = BreathingPattern.calm.state(at: expected.at)
        #expect(BreathingPattern.calm.cycleSeconds == 14)
        #expect(state.kind == expected.kind)
        #expect(abs(state.scale - expected.scale) < 1e-9 && abs(state.opacity - expected.opacity) < 1e-9)
        #expect(state.progress == 0)
    }

    @Test("each step ends on its end keyframe, and moves smoothly in between")
    func withinSteps() {
        let pattern = BreathingPattern.calm
        let endOfInhale = pattern.state(at: 4 - 1e-9)
        #expect(endOfInhale.kind == .inhale && abs(endOfInhale.scale - 1.8) < 1e-6 && abs(endOfInhale.opacity - 1) < 1e-6)
        let endOfExhale = pattern.state(at: 12 - 1e-9)
        #expect(endOfExhale.kind == .exhale && abs(endOfExhale.scale - 1) < 1e-6 && abs(endOfExhale.opacity - 0.6) < 1e-6)
        // Halfway through breathing in: halfway in size (the easing is symmetric).
        let middle = pattern.state(at: 2)
        #expect(abs(middle.scale - 1.4) < 1e-9 && abs(middle.progress - 0.5) < 1e-9)
        // Growing never overshoots or turns back.
        let scales = stride(from: 0.0, through: 4, by: 0.1).map { pattern.state(at: $0).scale }
        #expect(zip(scales, scales.dropFirst()).allSatisfy { $0 <= $1 + 1e-12 })
        #expect(pattern.state(at: 15.5).cycle == 1)
        #expect(pattern.state(at: -3) == pattern.state(at: 0))
    }

    @Test("other rhythms are data of the same shape: 4-7-8 and box")
    func otherPatterns() throws {
        #expect(BreathingPattern.relaxing.cycleSeconds == 19)
        #expect(BreathingPattern.relaxing.state(at: 4).kind == .hold)
        #expect(BreathingPattern.relaxing.state(at: 11).kind == .exhale)
        #expect(BreathingPattern.relaxing.state(at: 19).kind == .inhale)
        #expect(BreathingPattern.box.cycleSeconds == 16)
        #expect(BreathingPattern.box.steps.allSatisfy { $0.seconds == 4 })
        // A pattern survives JSON unchanged (the web app receives them this way).
        let data = try JSONEncoder().encode(BreathingPattern.all)
        #expect(try JSONDecoder().decode([BreathingPattern].self, from: data) == BreathingPattern.all)
        #expect(BreathingPattern.Kind.exhale.word == "Exhale")
    }
}
