import AudioRender
import Foundation
import SharedCases
import Testing

/// `Tests/Shared/ab-loop-cases.json`, which the song player's loop (`Web/write/loop.js`) answers
/// too (`e2e/test_write_player.py`): where A and B snap to, and the fade into A.
struct SharedLoopCases: Decodable {
    struct Partial: Decodable {
        var hz: Double
        var amplitude: Double
        var phase: Double
    }

    /// Sines per channel, or the samples themselves (interleaved).
    struct Signal: Decodable {
        var sampleRate: Int
        var frames: Int?
        var partials: [[Partial]]?
        var samples: [Float]?
        var channelCount: Int?

        enum CodingKeys: String, CodingKey { case sampleRate, frames, channels, samples }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sampleRate = try container.decode(Int.self, forKey: .sampleRate)
            frames = try container.decodeIfPresent(Int.self, forKey: .frames)
            samples = try container.decodeIfPresent([Float].self, forKey: .samples)
            if samples != nil {
                channelCount = try container.decode(Int.self, forKey: .channels)
            } else {
                partials = try container.decode([[Partial]].self, forKey: .channels)
            }
        }

        var loop: SongLoop {
            if let samples, let channelCount { return SongLoop(samples: samples, channels: channelCount, sampleRate: sampleRate) }
            let partials = partials ?? []
            var samples: [Float] = []
            for frame in 0..<(frames ?? 0) {
                for channel in partials {
                    samples.append(Float(channel.reduce(0.0) { sum, partial in
                        sum + partial.amplitude * sin(2 * .pi * partial.hz * Double(frame) / Double(sampleRate) + partial.phase)
                    }))
                }
            }
            return SongLoop(samples: samples, channels: partials.count, sampleRate: sampleRate)
        }
    }

    /// A search for the frame to snap to near `near`: a rising zero crossing, or (with `a`) the
    /// frame that best matches the audio at A.
    struct Snap: Decodable, CustomTestStringConvertible {
        var name: String
        var signal: String
        var a: Int?
        var near: Int
        var radius: Int
        var frame: Int
        var testDescription: String { name }
    }

    struct Loop: Decodable, CustomTestStringConvertible {
        var name: String
        var signal: String
        var start: Int
        var end: Int
        var a: Int
        var b: Int
        var head: [Float]
        var tail: [Float]
        var testDescription: String { name }
    }

    var snapRadiusSeconds: Double
    var crossfadeSeconds: Double
    var signals: [String: Signal]
    var zeroCrossing: [Snap]
    var bestMatch: [Snap]
    var loops: [Loop]

    static func load() throws -> SharedLoopCases {
        try SharedCases.load("ab-loop-cases.json")
    }

    func loop(_ name: String) throws -> SongLoop {
        try #require(signals[name], "no signal \(name)").loop
    }
}

@Suite("Song loops: the cases shared with the browser")
struct SharedLoopCaseTests {
    static let shared = try! SharedLoopCases.load()

    @Test("the file pins the snap radius and the fade to the engine's")
    func constants() {
        #expect(Self.shared.snapRadiusSeconds == SongLoop.snapRadius)
        #expect(Self.shared.crossfadeSeconds == SongLoop.crossfade)
        #expect(Self.shared.zeroCrossing.count >= 8 && Self.shared.bestMatch.count >= 3 && Self.shared.loops.count >= 6)
    }

    @Test("A snaps to the rising zero crossing the shared file names", arguments: shared.zeroCrossing)
    func zeroCrossing(_ sharedCase: SharedLoopCases.Snap) throws {
        let loop = try Self.shared.loop(sharedCase.signal)
        #expect(loop.risingZeroCrossing(near: sharedCase.near, radius: sharedCase.radius) == sharedCase.frame)
    }

    @Test("B snaps to the frame the shared file names", arguments: shared.bestMatch)
    func bestMatch(_ sharedCase: SharedLoopCases.Snap) throws {
        let loop = try Self.shared.loop(sharedCase.signal)
        let a = try #require(sharedCase.a, "a best-match case names A")
        #expect(loop.bestMatch(for: a, near: sharedCase.near, radius: sharedCase.radius) == sharedCase.frame)
    }

    @Test("a loop's ends and its faded section are the shared file's", arguments: shared.loops)
    func loop(_ sharedCase: SharedLoopCases.Loop) throws {
        let loop = try Self.shared.loop(sharedCase.signal)
        let range = loop.snappedRange(from: sharedCase.start, to: sharedCase.end)
        #expect(range == sharedCase.a..<sharedCase.b)
        let section = loop.section(range)
        let head = Array(section.prefix(sharedCase.head.count)), tail = Array(section.suffix(sharedCase.tail.count))
        #expect(head.count == sharedCase.head.count && tail.count == sharedCase.tail.count)
        #expect(zip(head, sharedCase.head).allSatisfy { abs($0 - $1) <= 1e-6 }, "head \(head)")
        #expect(zip(tail, sharedCase.tail).allSatisfy { abs($0 - $1) <= 1e-6 }, "tail \(tail)")
    }
}
