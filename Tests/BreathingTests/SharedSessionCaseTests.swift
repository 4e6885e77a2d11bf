@testable import Breathing
import Foundation
import SharedCases
import Testing

/// The cases in `Tests/Shared/meditation-session-cases.json`, which the browser's session machine
/// (`Web/meditation/run.js`) answers too (`e2e/test_meditate.py`): one truth for both.
struct SharedSessionCases: Decodable {
    struct Plan: Decodable {
        struct Phase: Decodable { var type: String; var durationSeconds: Int }
        struct Cue: Decodable { var atSeconds: Double; var audioFile: String }
        var sessionType: String
        var durationMinutes: Int
        var phases: [Phase]
        var cues: [Cue]
    }

    struct Step: Decodable {
        var at: Double
        var `do`: String
        var events: [String]?
        var returns: Bool?
        /// For `end`: the record's seconds; JSON null (no record) is `.some(nil)`.
        var record: Int??
        var status: String?
        var elapsed: Double?

        enum CodingKeys: String, CodingKey { case at, `do`, events, returns, record, status, elapsed }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            at = try container.decode(Double.self, forKey: .at)
            `do` = try container.decode(String.self, forKey: .do)
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
        var run = MeditationRun(sessionType: plan.sessionType, variant: variant,
                                cues: plan.cues.map { ScheduledCue(atSeconds: $0.atSeconds, audioFile: $0.audioFile) })
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (number, step) in sharedCase.steps.enumerated() {
            let now = start.addingTimeInterval(step.at)
            let label = "step \(number + 1) (\(step.do) at \(step.at) s)"
            switch step.do {
            case "start": #expect(run.start(at: now).map(Self.name) == step.events ?? [], "\(label)")
            case "tick": #expect(run.tick(at: now).map(Self.name) == step.events ?? [], "\(label)")
            case "pause": #expect(run.pause(at: now) == step.returns, "\(label)")
            case "resume": #expect(run.resume(at: now) == step.returns, "\(label)")
            case "end":
                let record = run.endEarly(at: now)
                if let expected = step.record { #expect(record?.actualDurationSeconds == expected, "\(label)") }
            default: Issue.record("\(label): unknown step")
            }
            if let status = step.status { #expect(run.state.status.rawValue == status, "\(label)") }
            if let elapsed = step.elapsed { #expect(abs(run.elapsed(at: now) - elapsed) < 0.01, "\(label): \(run.elapsed(at: now))") }
        }
    }

    /// An event as the shared file writes it.
    static func name(_ event: MeditationRun.Event) -> String {
        switch event {
        case let .phaseChanged(index, _): "phase \(index)"
        case let .playCue(file): "cue \(file)"
        case let .skippedCue(file): "skip \(file)"
        case .playBell: "bell"
        case let .completed(record): "complete \(record.actualDurationSeconds)"
        case let .endedEarly(record, timedOut): "\(timedOut ? "timed out" : "ended") \(record.actualDurationSeconds)"
        }
    }
}
