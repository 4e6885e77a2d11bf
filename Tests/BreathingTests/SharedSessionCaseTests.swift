@testable import Breathing
import Foundation
import SharedCases
import Testing

/// The cases in `Tests/Shared/meditation-session-cases.json`, which the browser's session machine
/// (`Web/meditation/run.js`) answers too (`e2e/test_meditate.py`): one truth for both.
struct SharedSessionCases: Decodable {
    struct Plan: Decodable {
        struct Phase: Decodable { var type: String; var durationSeconds: Int }
        var sessionType: String
        var durationMinutes: Int
        var phases: [Phase]
    }

    struct Step: Decodable {
        var at: Double
        var `do`: String
        /// For `tick`, `pause` and `end`: where the session's sound is (seconds).
        var position: Double?
        var events: [String]?
        var returns: Bool?
        /// For `end`: the record's seconds; JSON null (no record) is `.some(nil)`.
        var record: Int??
        var status: String?
        var elapsed: Double?

        enum CodingKeys: String, CodingKey { case at, `do`, position, events, returns, record, status, elapsed }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            at = try container.decode(Double.self, forKey: .at)
            `do` = try container.decode(String.self, forKey: .do)
            position = try container.decodeIfPresent(Double.self, forKey: .position)
            events = try container.decodeIfPresent([String].self, forKey: .events)
            returns = try container.decodeIfPresent(Bool.self, forKey: .returns)
            record = container.contains(.record) ? .some(try container.decodeNil(forKey: .record) ? nil : container.decode(Int.self, forKey: .record)) : nil
            status = try container.decodeIfPresent(String.self, forKey: .status)
            elapsed = try container.decodeIfPresent(Double.self, forKey: .elapsed)
        }
    }

    struct Case: Decodable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    var plan: Plan
    var cases: [Case]

    static func load() throws -> SharedSessionCases {
        try SharedCases.load("meditation-session-cases.json")
    }
}

@Suite("Session machine: the cases shared with the browser")
struct SharedSessionCaseTests {
    static let shared = try! SharedSessionCases.load()

    @Test("each step answers as the shared file says", arguments: shared.cases)
    func sharedCase(_ sharedCase: SharedSessionCases.Case) throws {
        let plan = Self.shared.plan
        let phases = try JSONDecoder().decode([MeditationManifest.Phase].self, from: JSONSerialization.data(withJSONObject:
            plan.phases.map { ["type": $0.type, "durationSeconds": $0.durationSeconds, "fixedCues": [Any]()] as [String: Any] }))
        let variant = MeditationManifest.Variant(durationMinutes: plan.durationMinutes, phases: phases)
        var run = MeditationRun(sessionType: plan.sessionType, variant: variant)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (number, step) in sharedCase.steps.enumerated() {
            let now = start.addingTimeInterval(step.at)
            let label = "step \(number + 1) (\(step.do) at \(step.at) s)"
            let position = step.position ?? 0
            switch step.do {
            case "start": #expect(run.start(at: now).map(Self.name) == step.events ?? [], "\(label)")
            case "tick": #expect(run.tick(at: now, position: position).map(Self.name) == step.events ?? [], "\(label)")
            case "pause": #expect(run.pause(at: now, position: position) == step.returns, "\(label)")
            case "resume": #expect(run.resume(at: now) == step.returns, "\(label)")
            case "end":
                let record = run.endEarly(at: now, position: position)
                if let expected = step.record { #expect(record?.actualDurationSeconds == expected, "\(label)") }
            case "reopen":
                // Saved and read back as the device keeps it, then recovered as the app does on opening.
                let saved = try JSONDecoder().decode(MeditationSessionPersisted.self, from: JSONEncoder().encode(run.state))
                let back = MeditationRun.recover(saved, variant: variant, at: now)
                #expect((back != nil) == step.returns, "\(label)")
                if let back { run = back }
            default: Issue.record("\(label): unknown step")
            }
            if let status = step.status { #expect(run.state.status.rawValue == status, "\(label)") }
            if let elapsed = step.elapsed { #expect(abs(run.elapsed - elapsed) < 0.01, "\(label): \(run.elapsed)") }
        }
    }

    /// An event as the shared file writes it.
    static func name(_ event: MeditationRun.Event) -> String {
        switch event {
        case let .phaseChanged(index, _): "phase \(index)"
        case let .completed(record): "complete \(record.actualDurationSeconds)"
        case let .endedEarly(record, timedOut): "\(timedOut ? "timed out" : "ended") \(record.actualDurationSeconds)"
        }
    }
}
