import Breathing
import Feeds
import Foundation
import ReverieAPI
@testable import ReverieServer
import SleepLibrary
import Speech
import Testing

/// Where an engine's value and its wire type have the same fields, the server converts in one
/// place; the JSON it sends must be what the engine's own value would have encoded to, so that a
/// field added to one and not the other shows here.
@Suite("Engine values on the wire")
struct WireConversionTests {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func everyCatalogItemIsSentAsTheCatalogWritesIt() throws {
        for item in try SleepLibrary.bundled().items {
            #expect(try Self.json(SleepItemInfo(item)) == Self.json(item), "\(item.id)")
        }
    }

    @Test func aVoiceIsSentAsTheEngineDescribesIt() throws {
        let voice = Voice(id: "en-gb", name: "eSpeak English", language: "en-GB", engine: "espeak-ng")
        #expect(try Self.json(VoiceInfo(voice)) == Self.json(voice))
    }

    @Test("a transcript cue is sent as parsed, with and without its end and speaker", arguments: [
        ParsedCue(start: 0.5, end: 2, speaker: "Ann", text: "Good evening."),
        ParsedCue(start: 7, end: nil, speaker: nil, text: "Still Bo."),
    ])
    func aTranscriptCueIsSentAsParsed(_ cue: ParsedCue) throws {
        #expect(try Self.json(TranscriptLine(cue)) == Self.json(cue))
    }

    @Test func aBreathingStepIsSentWithItsKeyframesAndItsWord() throws {
        for step in BreathingPattern.calm.steps {
            let sent = try JSONSerialization.jsonObject(with: JSONEncoder().encode(MeditationPlan.Step(step))) as? NSDictionary
            var expected = try JSONSerialization.jsonObject(with: JSONEncoder().encode(step)) as? [String: Any] ?? [:]
            expected["word"] = step.kind.word
            #expect(sent == NSDictionary(dictionary: expected))
        }
    }
}
