import AudioRender
import Foundation
import Speech
import SharedCases
import Testing

/// The real engines a test speaks with: Piper from `.venv`, and eSpeak NG's library.
enum RealEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case piper, espeak

    var engine: any SpeechEngine { self == .piper ? sharedPiper : sharedESpeak }
    var testDescription: String { rawValue }
}

/// Real speech from Piper and eSpeak NG, measured in the audio itself.
@Suite("Rendering with real engines", .serialized)
struct RealEngineTests {
    static let script = "Breathe in slowly. (0.3s) Hold it there. (0.6s) And let it go. (2s) Rest now. (0.05m) Welcome back."

    /// One render per engine, shared by the tests (speaking takes seconds).
    static let renders: [RealEngine: Task<RenderedSpeech, any Error>] = Dictionary(uniqueKeysWithValues: RealEngine.allCases.map { kind in
        (kind, Task { try await ScriptRenderer(engine: kind.engine).render(script) })
    })

    @Test("Piper is installed by the bootstrap")
    func installed() {
        #expect(PiperEngine.Configuration.repository(repositoryRoot).isInstalled)
    }

    @Test("eSpeak NG loads and offers English voices")
    func espeakVoices() async throws {
        let espeak = ESpeakEngine()
        #expect(await espeak.isAvailable())
        let voices = try await espeak.voices()
        #expect(voices.contains { $0.id == espeak.defaultVoice })
        await #expect(throws: SpeechError.self) { _ = try await espeak.synthesize("Hello.", voice: "xx-nowhere", rate: 1) }
    }

    @Test("every pause measured in the audio is within 25 ms of the script's", arguments: RealEngine.allCases)
    func pauseAccuracy(_ kind: RealEngine) async throws {
        let audio = try await Self.renders[kind]!.value.audio
        let gaps = silences(in: audio)
        #expect(gaps.map(\.length).count == 4, "\(gaps)")
        for (gap, expected) in zip(gaps, [0.3, 0.6, 2.0, 3.0]) {
            #expect(abs(gap.length - expected) <= 0.025, "measured \(gap.length) s for \(expected) s")
        }
    }

    @Test("no clicks: the sample-to-sample jump at every phrase edge stays under 0.02", arguments: RealEngine.allCases)
    func noClicks(_ kind: RealEngine) async throws {
        let rendered = try await Self.renders[kind]!.value
        for (boundary, jump) in jumpsAtPauses(rendered) {
            #expect(jump < 0.02, "jump \(jump) at \(boundary) ms")
        }
    }

    @Test("integrated loudness, measured by ffmpeg's ebur128, is −16 LUFS within 1 LU", arguments: RealEngine.allCases)
    func loudness(_ kind: RealEngine) async throws {
        let audio = try await Self.renders[kind]!.value.audio
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("piper-\(UUID().uuidString).wav")
        try WAVFile.encode(audio).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await CommandRunner.live.run("ffmpeg", ["-hide_banner", "-nostats", "-i", file.path, "-af", "ebur128", "-f", "null", "-"], nil)
        let text = String(decoding: result.errors, as: UTF8.self)
        let summary = try #require(text.range(of: "Integrated loudness:", options: .backwards))
        let match = try #require(text[summary.upperBound...].firstMatch(of: /I:\s+(-?[0-9.]+) LUFS/))
        let lufs = try #require(Double(match.1))
        #expect(abs(lufs - (-16)) <= 1, "ffmpeg measured \(lufs) LUFS")
        #expect(decibels(audio.peak) <= -1 + 1e-3)
    }

    @Test("captions and words are in order, inside the audio, and start with the voice (±50 ms)", arguments: RealEngine.allCases)
    func timings(_ kind: RealEngine) async throws {
        let rendered = try await Self.renders[kind]!.value
        let timeline = rendered.timeline
        #expect(timeline.phrases.count == 5)
        #expect(timeline.phrases.flatMap(\.words).count >= 12)
        var last = 0
        for phrase in timeline.phrases {
            #expect(phrase.startMs >= last && phrase.endMs > phrase.startMs && phrase.endMs <= timeline.durationMs)
            for word in phrase.words {
                #expect(word.startMs >= last && word.endMs >= word.startMs && word.endMs <= phrase.endMs)
                last = word.startMs
            }
            last = phrase.endMs
        }
        // Where sound actually starts after each silence: the end of each measured gap.
        let onsets = silences(in: rendered.audio).map { $0.start + $0.length }
        for (phrase, onset) in zip(timeline.phrases.dropFirst(), onsets) {
            #expect(abs(Double(phrase.startMs) / 1000 - onset) <= 0.05, "caption at \(phrase.startMs) ms, voice at \(onset) s")
        }
        #expect(timeline.webVTT.components(separatedBy: " --> ").count == 6)
    }

    @Test("a worker killed mid-phrase is replaced and the phrase spoken again; a worker that keeps dying fails the request")
    func workerCrash() async throws {
        let engine = PiperEngine(configuration: .repository(repositoryRoot))
        _ = try await engine.synthesize("Warm up.", voice: nil, rate: 1)
        let pid = try #require(await engine.workerProcessIDs.first)
        let speaking = Task { try await engine.synthesize(String(repeating: "A long sentence to keep the worker busy. ", count: 20), voice: nil, rate: 1) }
        // Killed once the phrase is in the worker's hands (however long a busy machine takes to pass it on).
        let deadline = ContinuousClock.now + .seconds(120)
        while await engine.busyWorkerProcessIDs != [pid], ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await engine.busyWorkerProcessIDs == [pid])
        kill(pid, SIGKILL)
        let spoken = try await speaking.value
        #expect(spoken.audio.duration > 20)
        // Replaced: the killed worker is not among those that run, and one runs again.
        let running = await engine.workerProcessIDs
        #expect(!running.contains(pid) && !running.isEmpty, "\(running) after killing \(pid)")
        await engine.shutdown()

        // A worker that loads and then dies on every phrase: tried twice, then a clear error.
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("dying-worker-\(UUID().uuidString).py")
        try Data("import sys\nprint('{\"ready\": true}', flush=True)\nsys.stdin.readline()\nsys.exit(3)\n".utf8).write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let dying = PiperEngine(configuration: .init(python: repositoryRoot + "/.venv/bin/python", workerScript: script.path))
        await #expect(throws: SpeechError.self) { _ = try await dying.synthesize("Hello.", voice: nil, rate: 1) }
    }

    /// A long render asks four phrases (`phrase`) ahead: the worker speaks one and holds one in
    /// its input, two wait in line. Then a person taps something new: its opening is asked. Answers
    /// how many long phrases had been heard when it was asked (on a busy machine one may have
    /// ended meanwhile) and the order all were heard in ("long N", "opening").
    static func openingAfterALongRender(_ engine: PiperEngine, phrase: String) async throws -> (before: Int, heard: [String]) {
        actor Order {
            var heard: [String] = []
            func add(_ name: String) { heard.append(name) }
        }
        let order = Order()
        let before = try await withThrowingTaskGroup(of: Void.self, returning: Int.self) { group in
            for index in 1...4 {
                group.addTask {
                    _ = try await SpeechRequests.$group.withValue("long") {
                        try await engine.synthesize("Phrase \(index) \(phrase)", voice: nil, rate: 1)
                    }
                    await order.add("long \(index)")
                }
            }
            // (Once the worker holds two and two wait for its room, however long a busy machine takes.)
            let deadline = ContinuousClock.now + .seconds(120)
            while await engine.waitingRequests < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let before = await order.heard.count
            group.addTask {
                _ = try await SpeechRequests.$group.withValue("new") {
                    try await SpeechRequests.$opening.withValue(true) { try await engine.synthesize("Hello there.", voice: nil, rate: 1) }
                }
                await order.add("opening")
            }
            try await group.waitForAll()
            return before
        }
        return (before, await order.heard)
    }

    @Test("a render's opening is spoken next, before the phrases of a long render already waiting for the worker (first sound)")
    func openingGoesFirst() async throws {
        let engine = PiperEngine(configuration: .repository(repositoryRoot))
        _ = try await engine.synthesize("Warm up.", voice: nil, rate: 1)
        let (before, heard) = try await Self.openingAfterALongRender(engine, phrase: "of the long story drifts on over the quiet hills tonight.")
        // After at most the phrase being spoken when it was asked (or, should that one end just
        // as it is asked, the next): in turn it would come after three, the one spoken, the one
        // in the worker's input and one of those in line.
        let at = heard.firstIndex(of: "opening") ?? 9
        #expect(at - before <= 2, "asked after \(before) were heard: \(heard)")
        await engine.shutdown()
    }

    @Test("with a worker kept for openings, a render's opening is spoken by it while the pool's worker speaks a long render's phrases, which never go to it (first sound)")
    func openingWorker() async throws {
        let engine = PiperEngine(configuration: .repository(repositoryRoot, workers: 1, threadsPerWorker: 1, openingThreads: 2))
        await engine.warm()
        #expect(engine.concurrency == 1)
        let kept = try #require(await engine.openingWorkerProcessID)
        #expect(await engine.workerProcessIDs.count == 2)
        // Each long phrase about 8 s of speech, on one thread.
        let (before, heard) = try await Self.openingAfterALongRender(
            engine, phrase: "of the long story drifts on over the quiet hills tonight, past the sleeping farms, the still mill pond and the old stone bridge by the river.")
        // The opening went to the kept worker, and nothing else did: the long render's phrases
        // all waited for the pool's worker. (Which ends first, the opening or the phrase being
        // spoken when it was asked, is the machine's: on a quiet one the opening, by far; a
        // loaded test run may start the opening's task seconds late.)
        #expect(await engine.openingWorkerRequests == 1)
        #expect(await engine.openingWorkerProcessID == kept)
        // It did not wait in line: heard before the long render's last phrases.
        let at = heard.firstIndex(of: "opening") ?? 9
        #expect(at - before <= 1, "asked after \(before) were heard: \(heard)")
        await engine.shutdown()
    }

    @Test("two workers render the same script as one does, phrase by phrase: pauses exact, every phrase at −16 LUFS and faded")
    func poolMatchesOneWorker() async throws {
        let script = (0..<6).map { "Sentence \($0 + 1) drifts by like a slow cloud over the hill. (\(0.3 + Double($0) * 0.2)s)" }.joined(separator: "\n")
        #expect(sharedPiper.concurrency == 1 && sharedPiperPool.concurrency == 2)
        async let single = ScriptRenderer(engine: sharedPiper).render(script)
        async let pooled = ScriptRenderer(engine: sharedPiperPool).render(script)
        let (a, b) = try await (single, pooled)
        #expect(await sharedPiperPool.workerProcessIDs.count == 2)
        #expect(a.timeline.phrases.map(\.text) == b.timeline.phrases.map(\.text))
        #expect(a.timeline.pauses.map(\.seconds) == b.timeline.pauses.map(\.seconds))
        for rendered in [a, b] {
            for (pause, expected) in zip(rendered.timeline.pauses, (0..<6).map { 0.3 + Double($0) * 0.2 }) {
                #expect(abs(Double(pause.endMs - pause.startMs) / 1000 - expected) <= 0.001)
            }
            let rate = rendered.audio.sampleRate
            for phrase in rendered.timeline.phrases {
                #expect(abs(try heardLoudness(rendered, phrase) - (-16)) < 0.5, "\(phrase.text)")
                // Faded in and out: the samples at the very edges of each phrase are near silence.
                let start = AudioBuffer.sampleCount(Double(phrase.startMs) / 1000, rate) - AudioBuffer.sampleCount(0.004, rate)
                #expect(abs(rendered.audio.samples[max(0, start)]) < 0.01)
            }
            #expect(decibels(rendered.audio.peak) <= -1 + 1e-3)
            for (boundary, jump) in jumpsAtPauses(rendered) {
                #expect(jump < 0.02, "jump \(jump) at \(boundary) ms")
            }
        }
        // Piper draws its timing at random, so the same phrase lasts a little more or less each time.
        for (x, y) in zip(a.timeline.phrases, b.timeline.phrases) {
            let ratio = Double(x.endMs - x.startMs) / Double(y.endMs - y.startMs)
            #expect((0.8...1.25).contains(ratio), "\(x.text): \(ratio)")
        }
    }

    @Test("spoken by Piper for sleep and fitted to a length: exactly that long, the pauses stretched alike, the voice at −16 LUFS over the bed")
    func sleepFitted() async throws {
        let script = (1...6).map { "Breath \($0): let the shoulders soften and the jaw grow heavy. (\(2 + $0 % 3)s)" }.joined(separator: "\n")
        let rendered = try await SleepNarration(engine: sharedPiperPool).render(script, seconds: 60)
        #expect(rendered.audio.samples.count == AudioBuffer.sampleCount(60, rendered.audio.sampleRate))
        let factors = zip(rendered.timeline.pauses, (1...6).map { Double(2 + $0 % 3) }).map { $0.seconds / $1 }
        let kept = factors.dropLast()   // the last pause takes up the rest
        #expect(kept.max()! / kept.min()! < 1.15, "\(factors)")
        for phrase in rendered.timeline.phrases { #expect(abs(try heardLoudness(rendered, phrase) - (-16)) < 1, "\(phrase.text)") }
        #expect(rendered.audio.peak <= amplitude(decibels: -1) + 1e-4)
    }

    @Test("a short render asked for during a long one is not kept waiting for the long one's phrases")
    func fairTurns() async throws {
        let engine = sharedPiperPool
        await engine.warm()
        let long = (1...20).map { "This is sentence \($0) of a long evening story." }.joined(separator: "\n")
        let progress = Locked(0)
        let longRender = Task { try await ScriptRenderer(engine: engine).render(long) { done, _ in progress.withLockedValue { $0 = done } } }
        while progress.withLockedValue({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(20)) }
        _ = try await ScriptRenderer(engine: engine).render("A short line.")
        let doneWhenShortFinished = progress.withLockedValue { $0 }
        _ = try await longRender.value
        // Asked after two of the long render's twenty phrases, it is done long before the last:
        // it waits for the phrases already in the workers' hands, not for the rest of the queue.
        #expect(doneWhenShortFinished <= 12, "the long render had \(doneWhenShortFinished) of 20 phrases when the short one finished")
    }

    @Test("a render let go of stops at Piper: of the phrases in the workers' hands only those begun are spoken, and the workers go on")
    func letGoStopsPiper() async throws {
        let piper = sharedPiperPool
        await piper.warm()
        let workers = await piper.workerProcessIDs
        let engine = TallyingEngine(piper)
        let long = (1...20).map { "This is sentence \($0) of a long evening story, told slowly." }.joined(separator: "\n")
        let rendering = Task { try await ScriptRenderer(engine: engine).render(long) }
        // Let go of once the first phrase is spoken and more phrases are in hand than the workers
        // have begun (one begins in each; the others wait in a worker's input or for a turn): those
        // waiting are the ones that must not be spoken. (Right after a phrase ends, its worker may
        // hold only the one it began, so that moment is waited out, not taken.)
        let begun = await piper.workerProcessIDs.count
        _ = try await eventually("Piper's first phrase spoken and more in hand than begun", every: .milliseconds(5)) {
            engine.tally.withLockedValue { $0.spoken > 0 && $0.speaking > begun } ? true : nil
        }
        let spokenBefore = engine.tally.withLockedValue { $0.spoken }
        rendering.cancel()
        await #expect(throws: CancellationError.self) { _ = try await rendering.value }
        let tally = engine.tally.withLockedValue { $0 }
        #expect(tally.speaking == 0)
        // The two begun are spoken to their end (+1 for a phrase that ended as the render was let go of).
        #expect(tally.spoken <= spokenBefore + 3, "\(tally.spoken) spoken, \(spokenBefore) before letting go")
        #expect(tally.cancelled >= 1)
        // The workers were not stopped for it, and speak the next render's phrase.
        #expect(try await ScriptRenderer(engine: piper).render("And now, good night.").timeline.phrases.count == 1)
        #expect(await piper.workerProcessIDs == workers)
    }

    @Test("the rate sets how long speech lasts: 0.8 speaks half as long again as 1.2", arguments: RealEngine.allCases)
    func rate(_ kind: RealEngine) async throws {
        let text = "The quiet lake at night holds the moon, the pines and the slow breath of the wind across the water."
        let fast = try await kind.engine.synthesize(text, voice: nil, rate: 1.2).audio
        let slow = try await kind.engine.synthesize(text, voice: nil, rate: 0.8).audio
        func spoken(_ audio: AudioBuffer) -> Int { audio.audibleRange(threshold: -40)?.count ?? 0 }
        // Piper: 1.37–1.50 over a dozen takes (its durations are drawn at random, and its response
        // to length_scale differs a little from line to line); eSpeak NG: 1.49.
        let ratio = Double(spoken(slow)) / Double(spoken(fast))
        #expect((1.3...1.7).contains(ratio), "\(spoken(slow)) vs \(spoken(fast)) samples: \(ratio)")
    }
}
