@testable import Bedside
import Foundation
import SharedCases
import Testing

/// `Tests/Shared/bedside-mode-cases.json`, which the browser's machine is held to as well.
struct SharedModeCases: Decodable {
    struct Step: Decodable {
        var event: ContentModeMachine.Event
        var effects: [String]
        var mode: ContentModeMachine.Mode?
        var phase: ContentModeMachine.Phase?
        var icon: ContentModeMachine.Icon?
        var needsGesture: Bool?
    }

    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var open: ContentModeMachine.Mode?
        var openEffects: [String]?
        var steps: [Step]
        var testDescription: String { name }
    }

    var cases: [Case]

    static func load() throws -> SharedModeCases {
        try SharedCases.load("bedside-mode-cases.json")
    }
}

@Suite("Leaf/Masks mode machine")
struct ContentModeMachineTests {
    typealias Machine = ContentModeMachine
    static let shared = try! SharedModeCases.load()

    @Test("each shared case answers as written", arguments: shared.cases)
    func sharedCase(_ sharedCase: SharedModeCases.Case) {
        var machine = Machine()
        if let open = sharedCase.open {
            let (opened, effects) = Machine.opened(saved: open)
            machine = opened
            if let expected = sharedCase.openEffects { #expect(effects.map(\.description) == expected, "on open") }
        }
        for (number, step) in sharedCase.steps.enumerated() {
            let label = "step \(number + 1) (\(step.event.rawValue))"
            #expect(machine.handle(step.event).map(\.description) == step.effects, "\(label)")
            if let mode = step.mode { #expect(machine.mode == mode, "\(label)") }
            if let phase = step.phase { #expect(machine.phase == phase, "\(label)") }
            if let icon = step.icon { #expect(machine.icon == icon, "\(label)") }
            if let needsGesture = step.needsGesture { #expect(machine.needsGesture == needsGesture, "\(label)") }
        }
    }

    /// Every state the machine can reach from Off or from any opening, by any events.
    static func reachable() -> [Machine] {
        var seen: [Machine] = []
        var queue = [Machine()] + Machine.Mode.allCases.map { Machine.opened(saved: $0).machine }
        while let state = queue.popLast() {
            guard !seen.contains(state) else { continue }
            seen.append(state)
            for event in Machine.Event.allCases {
                var next = state
                _ = next.handle(event)
                queue.append(next)
            }
        }
        return seen
    }

    @Test("every reachable state crossed with every event: stopping and the gap ignore taps, a tap while starting is Off at once, and nothing reaches a state that cannot be")
    func everyStateAndEvent() {
        let states = Self.reachable()
        #expect(states.count >= 12, "\(states.count) states")
        for state in states {
            // What can be: Off is only ever idle; the gap and the dots only on the way from meditation to poetry.
            #expect(state.mode != .off || (state.phase == .idle && state.afterStop == nil), "\(state)")
            #expect(state.phase != .gap || (state.mode == .meditation && state.afterStop == .poetry), "\(state)")
            #expect((state.afterStop != nil) == (state.phase == .stopping || state.phase == .gap), "\(state)")
            #expect(!state.needsGesture || state.phase == .idle, "\(state)")
            for event in Machine.Event.allCases {
                var next = state
                let effects = next.handle(event)
                if state.isBusy && (event == .tap || event == .continueTapped || event == .roomChanged)
                    && !(state.phase == .starting && event == .tap) {
                    #expect(next == state && effects.isEmpty, "\(event) while \(state.phase) changed \(state) to \(next)")
                }
                // Silence only for a tap while starting (issue 31): Off, idle, stopped by hand.
                if effects.contains(.silence) || (state.phase == .starting && event == .tap) {
                    #expect(state.phase == .starting && event == .tap && next.mode == .off && next.phase == .idle
                            && effects == [.silence, .clearCompleted, .save(.off)], "\(state) + \(event) → \(effects)")
                }
                // Every start names the mode the machine is then in, and only one piece starts at a time.
                let starts = effects.compactMap { if case let .start(mode) = $0 { mode } else { nil } }
                #expect(starts.count <= 1 && starts.allSatisfy { $0 == next.mode && next.phase == .starting }, "\(state) + \(event) → \(effects)")
                // A stop by hand only from playing, and it clears the greeting's flag; the alarm's stop
                // (from starting or playing) leaves the flag as it is.
                if effects.contains(.stop) {
                    if event == .alarmRang {
                        #expect((state.phase == .playing || state.phase == .starting) && !effects.contains(.clearCompleted))
                    } else {
                        #expect(state.phase == .playing && effects.contains(.clearCompleted))
                    }
                }
                // The alarm leaves nothing to start: it ends Off, or on the way there.
                if event == .alarmRang { #expect(next.mode == .off || next.afterStop == .off, "\(state) + alarm → \(next)") }
                if effects.contains(.markCompleted) { #expect(event == .finished && state.phase == .playing) }
                // The mode saved is the mode the machine is in.
                for case let .save(mode) in effects { #expect(mode == next.mode) }
            }
        }
    }

    @Test("rapid tapping, with the player's answers arriving in any order, never breaks it (test 48)")
    func rapidTapping() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var machine = Machine()
            for _ in 0..<60 {
                let event = Bool.random(using: &random) ? Machine.Event.tap : Machine.Event.allCases.randomElement(using: &random)!
                _ = machine.handle(event)
                #expect(Self.reachable().contains(machine))
            }
            // Whatever happened, the player's answers bring it to rest, and three taps and answers go round the cycle.
            for event in [Machine.Event.stopped, .gapElapsed, .started] { _ = machine.handle(event) }
            #expect(machine.phase == .playing || machine.phase == .idle)
        }
    }

    @Test("idle taps go round Off → Meditation → Poetry → Off, saving each mode")
    func cycle() {
        var machine = Machine()
        var saved: [Machine.Mode] = []
        for _ in 0..<6 {
            for case let .save(mode) in machine.handle(.tap) { saved.append(mode) }
            _ = machine.handle(.started)
            _ = machine.handle(.finished)
        }
        #expect(saved == [.meditation, .poetry, .off, .meditation, .poetry, .off])
        #expect(Machine.Mode.meditation.kind == .meditation && Machine.Mode.poetry.kind == .poem && Machine.Mode.off.kind == nil)
    }
}
