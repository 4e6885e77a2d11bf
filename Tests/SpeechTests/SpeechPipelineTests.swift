import AudioRender
import Foundation
@testable import Speech
import Testing

/// A tone engine that speaks several phrases at once and finishes them in a scrambled order
/// (each phrase waits a time drawn from its text), with each phrase at its own level, as a pool of
/// workers does. Same protocol as the real engines; records when each phrase was finished.
final class ScrambledToneEngine: SpeechEngine {
    let name = "tone"
    let version = "1"
    let concurrency: Int
    private let log = Locked<[String]>([])

    init(concurrency: Int) { self.concurrency = concurrency }

    var events: [String] { log.withLockedValue { $0 } }
    func note(_ event: String) { log.withLockedValue { $0.append(event) } }

    func voices() async throws -> [Voice] { [Voice(id: "tone", name: "Tone", language: "en", engine: name)] }

    func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        let seed = text.unicodeScalars.reduce(7) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF }
        try await Task.sleep(for: .milliseconds(5 + seed % 40))
        let sampleRate = 22050
        let words = WordAligner.words(in: text)
        let level = 0.02 + Double(seed % 50) / 100   // from very quiet to loud
        let seconds = 0.3 * Double(max(1, words.count))
        let tone = (0..<AudioBuffer.sampleCount(seconds, sampleRate)).map {
            Float(level * sin(2 * Double.pi * Double(180 + seed % 200) * Double($0) / Double(sampleRate)))
        }
        let silence = AudioBuffer.silence(seconds: 0.08, sampleRate: sampleRate)
        let timings = words.enumerated().map { WordTiming(text: $1, start: 0.08 + 0.3 * Double($0), end: 0.08 + 0.3 * Double($0 + 1)) }
        note("spoken \(text)")
        return SynthesizedSpeech(audio: silence.appending(AudioBuffer(sampleRate: sampleRate, samples: tone)).appending(silence), words: timings)
    }
}

@Suite("Speech pipeline")
struct SpeechPipelineTests {
    static let script = (1...24).map { "Phrase number \($0) with \(String(repeating: "more ", count: $0 % 4))words. (\(Double($0 % 3) / 2 + 0.25)s)" }
        .joined(separator: "\n")

    @Test("a render spoken four at a time, finished out of order, is the same to the sample as one spoken one by one")
    func sameAsOneWorker() async throws {
        let single = try await ScriptRenderer(engine: ScrambledToneEngine(concurrency: 1)).render(Self.script)
        let pooled = try await ScriptRenderer(engine: ScrambledToneEngine(concurrency: 4)).render(Self.script)
        #expect(pooled.timeline == single.timeline)
        #expect(pooled.audio == single.audio)
        #expect(single.timeline.phrases.count == 24)
    }

    @Test("each phrase comes out at −16 LUFS with peaks under −1 dBFS, however loud the engine spoke it")
    func levelledPerPhrase() async throws {
        let rendered = try await ScriptRenderer(engine: ScrambledToneEngine(concurrency: 3)).render(Self.script)
        let rate = rendered.audio.sampleRate
        for phrase in rendered.timeline.phrases {
            #expect(abs(try heardLoudness(rendered, phrase) - (-16)) < 0.3, "\(phrase.text)")
        }
        #expect(decibels(rendered.audio.peak) <= -1 + 1e-3)
        #expect(rendered.audio.sampleRate == rate)
        #expect(abs(try Loudness.integrated(rendered.audio) - (-16)) < 1)
        // A phrase under 400 ms (too short for a meter's block on its own) is levelled too.
        let short = try await ScriptRenderer(engine: ToneEngine()).render("Hi.")
        #expect(short.timeline.phrases[0].endMs - short.timeline.phrases[0].startMs < 400)
        #expect(abs(try heardLoudness(short, short.timeline.phrases[0]) - (-16)) < 0.3)
    }

    @Test("finished audio is handed on in order while the rest is spoken; the stretches make the whole")
    func handedOnWhileSpeaking() async throws {
        let engine = ScrambledToneEngine(concurrency: 2)
        let stretches = Locked<[RenderedChunk]>([])
        let rendered = try await ScriptRenderer(engine: engine).render(Self.script, output: { chunk in
            stretches.withLockedValue { $0.append(chunk) }
            engine.note("handed on \(chunk.phrasesDone)")
        })
        let chunks = stretches.withLockedValue { $0 }
        #expect(chunks.count > 10)
        #expect(chunks.flatMap(\.audio.samples) == rendered.audio.samples)
        #expect(chunks.map(\.phrasesDone) == chunks.map(\.phrasesDone).sorted())
        #expect(chunks.last?.phrasesDone == 24)
        // The first stretch holds the first phrase whole and was handed on before the last phrase was spoken.
        let first = try #require(chunks.first)
        #expect(first.phrasesDone >= 1)
        #expect(first.audio.duration * 1000 >= Double(rendered.timeline.phrases[0].endMs))
        let events = engine.events
        let handed = try #require(events.firstIndex { $0.hasPrefix("handed on") })
        let lastSpoken = try #require(events.lastIndex { $0.hasPrefix("spoken") })
        #expect(handed < lastSpoken, "\(events)")
    }

    @Test("a render that must fit a length is handed on while spoken too, phrases arriving out of order, and the stretches make the exact whole")
    func fittedHandsOnWhileSpoken() async throws {
        let stretches = Locked<[AudioBuffer]>([])
        let script = (1...8).map { "Phrase number \($0) of the evening. (\($0 % 3 + 1)s)" }.joined(separator: "\n")
        let rendered = try await ScriptRenderer(engine: ScrambledToneEngine(concurrency: 2)).render(script, fitting: 60, output: { chunk in
            stretches.withLockedValue { $0.append(chunk.audio) }
        })
        // A stretch each time the next phrases in order are ready (several at once when they came
        // out of order), then the last pause.
        #expect(stretches.withLockedValue { $0.count } >= 3)
        let joined = stretches.withLockedValue { $0.flatMap(\.samples) }
        #expect(joined.count == rendered.audio.samples.count && joined == rendered.audio.samples, "the stretches differ from the whole")
        #expect(rendered.audio.samples.count == AudioBuffer.sampleCount(60, rendered.audio.sampleRate))
    }

    @Test("renders take turns: a waiting group is served before a long group's next request")
    func fairQueue() {
        var queue = FairQueue<String>()
        for index in 1...5 { queue.enqueue("long \(index)", group: "long") }
        queue.enqueue("short 1", group: "short")
        queue.enqueue("short 2", group: "short")
        var order: [String] = []
        while let next = queue.dequeue() { order.append(next) }
        #expect(order == ["long 1", "short 1", "long 2", "short 2", "long 3", "long 4", "long 5"])
        #expect(queue.isEmpty)
    }

    @Test("a waiter that leaves the line (its render let go of) is never served; the others keep their turns")
    func fairQueueRemoval() {
        var queue = FairQueue<String>()
        for index in 1...3 { queue.enqueue("long \(index)", group: "long") }
        queue.enqueue("left", group: "left")
        queue.enqueue("short 1", group: "short")
        #expect(queue.remove(from: "left") { $0 == "left" } == "left")
        #expect(queue.remove(from: "left") { $0 == "left" } == nil)
        #expect(queue.remove(from: "long") { $0 == "long 2" } == "long 2")
        var order: [String] = []
        while let next = queue.dequeue() { order.append(next) }
        #expect(order == ["long 1", "short 1", "long 3"])
        #expect(queue.isEmpty)
    }

    @Test("the pool is a worker per core with a thread each, and the environment can set it")
    func poolSize() {
        #expect(PiperEngine.Configuration.defaultPool(cores: 1) == (1, 0))
        #expect(PiperEngine.Configuration.defaultPool(cores: 2) == (2, 1))
        #expect(PiperEngine.Configuration.defaultPool(cores: 32) == (8, 4))
        let set = PiperEngine.Configuration.locate(environment: ["REVERIE_PIPER_WORKERS": "3", "REVERIE_PIPER_THREADS": "2",
                                                                "REVERIE_PIPER_PYTHON": "/p", "REVERIE_PIPER_WORKER": "/w"])
        #expect(set.workers == 3 && set.threadsPerWorker == 2 && set.python == "/p")
        #expect(PiperEngine.Configuration.locate(environment: ["REVERIE_PIPER_WORKERS": "1"]).threadsPerWorker == 0)
        // One more worker kept for openings, on every core up to four; none on one core or when
        // the environment says 0.
        #expect(PiperEngine.Configuration.locate(environment: [:], cores: 2).openingThreads == 2)
        #expect(PiperEngine.Configuration.locate(environment: [:], cores: 1).openingThreads == 0)
        #expect(PiperEngine.Configuration.locate(environment: [:], cores: 32).openingThreads == 4)
        #expect(PiperEngine.Configuration.locate(environment: ["REVERIE_PIPER_OPENING_THREADS": "0"], cores: 2).openingThreads == 0)
    }
}

@Suite("Streaming encoder")
struct EncoderStreamTests {
    @Test("stretches written one after another make one file as long as all of them; a cancelled stream leaves nothing")
    func stream() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("audio.m4a")
        let stream = try AudioEncoder().stream(.m4a, sampleRate: 22050, to: file)
        for frequency in [220.0, 330, 440] {
            let tone = (0..<22050).map { Float(0.3 * sin(2 * Double.pi * frequency * Double($0) / 22050)) }
            stream.write(AudioBuffer(sampleRate: 22050, samples: tone))
            #expect(!FileManager.default.fileExists(atPath: file.path))   // only whole files appear
        }
        try await stream.finish()
        let probe = try await AudioFiles().probe(file)
        #expect(abs(probe.duration - 3) < 0.06, "\(probe.duration)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["audio.m4a"])

        let cancelled = try AudioEncoder().stream(.mp3, sampleRate: 22050, to: folder.appendingPathComponent("gone.mp3"))
        cancelled.write(AudioBuffer(sampleRate: 22050, samples: [Float](repeating: 0.1, count: 4410)))
        cancelled.cancel()
        // ffmpeg is stopped and its partial file removed in the background: soon, however busy the machine.
        var left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let deadline = ContinuousClock.now + .seconds(120)
        while left != ["audio.m4a"], ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        }
        #expect(left == ["audio.m4a"])
    }
}
