import ArgumentParser
import AudioRender
import Foundation
import Speech
import SpokenScript

/// `reverie speak`: a script to an audio file, with captions and a timeline.
struct Speak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak a script with pause markers into an audio file.",
        discussion: """
        Pauses are written inline: (0.3s), (2s), (1.5m). A script without markers gets automatic
        pauses at line ends, sentence ends and blank lines. The format follows the file name:
        .m4a (AAC), .opus, .mp3 or .wav.
        """
    )

    @Argument(help: "The script file, or - for standard input.")
    var input: String

    @Option(name: .shortAndLong, help: "The audio file to write (.m4a, .opus, .mp3 or .wav).")
    var output: String

    @Option(help: "Voice id (see `reverie voices`).")
    var voice: String?

    @Option(help: "Speaking rate from 0.8 to 1.2; pitch stays the same.")
    var rate: Double = 1

    @Option(help: "Make the audio exactly this many seconds long by stretching or shortening every pause alike.")
    var fit: Double?

    @Flag(help: "Speak for sleep: over a soft synthesized bed that dips under the voice (with --fit, the length of a Wind Down item).")
    var bed = false

    @Option(help: "Also write WebVTT captions (one cue per phrase) here.")
    var captions: String?

    @Option(help: "Also write the timeline (phrases and words in milliseconds) as JSON here.")
    var timeline: String?

    func validate() throws {
        guard (0.8...1.2).contains(rate) else { throw ValidationError("--rate must be between 0.8 and 1.2.") }
        if let fit { guard fit > 0, fit <= 4 * 3600 else { throw ValidationError("--fit must be a number of seconds from 1 to 14400.") } }
        let lower = output.lowercased()
        guard lower.hasSuffix(".wav") || AudioEncoder.Format(fileName: output) != nil else {
            throw ValidationError("--output must end in .m4a, .opus, .mp3 or .wav.")
        }
    }

    func run() async throws {
        let text: String
        if input == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: input) else { throw CommandFailure("Cannot read \(input): no such file, or it is not readable.") }
            text = String(decoding: data, as: UTF8.self)
        }

        // A file is written whole: no one waits for its first phrase, so no worker is kept for it.
        var piper = PiperEngine.Configuration.locate()
        piper.openingThreads = 0
        let engines = await SpeechEngines.installed(piper: piper)
        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        let started = Date()
        let destination = URL(fileURLWithPath: output)
        // A compressed file is encoded while the rest is spoken; a WAV is written at the end.
        let sink = AudioEncoder.Format(fileName: output).map { AudioEncoder().sink($0, to: destination) }
        let write: @Sendable (RenderedChunk) async throws -> Void = { chunk in _ = try sink?.write(chunk.audio) }
        let rendered: RenderedSpeech
        do {
            let engine = try await engines.engine(for: voice)
            if bed {
                var narration = SleepNarration(engine: engine)
                narration.rate = rate
                rendered = try await narration.render(text, seconds: fit, voice: voice, progress: { done, total in bar.show(done: done, total: total) }, output: write)
            } else {
                rendered = try await ScriptRenderer(engine: engine).render(text, voice: voice, rate: rate, fitting: fit, progress: { done, total in
                    bar.show(done: done, total: total)
                }, output: write)
            }
            if let sink { try await sink.finish(else: rendered.audio) } else { try WAVFile.encode(rendered.audio).write(to: destination, options: .atomic) }
        } catch {
            sink?.cancel()
            if let error = error as? SpokenScriptError { throw CommandFailure(error.description) }
            if let error = error as? SpeechError { throw CommandFailure(error.description) }
            throw error
        }
        await engines.shutdown()
        bar.finish()
        for warning in rendered.timeline.warnings {
            FileHandle.standardError.write(Data("warning: line \(warning.line), column \(warning.column): \(warning.message)\n".utf8))
        }

        if let captions {
            try Data(rendered.timeline.webVTT.utf8).write(to: URL(fileURLWithPath: captions), options: .atomic)
        }
        if let timeline {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(rendered.timeline).write(to: URL(fileURLWithPath: timeline), options: .atomic)
        }
        let wall = Date().timeIntervalSince(started)
        let seconds = rendered.audio.duration
        print(String(format: "Wrote %@: %.1f s of audio, %d phrases, %d pauses (%.1f× real time).",
                     output, seconds, rendered.timeline.phrases.count, rendered.timeline.pauses.count, seconds / max(wall, 0.001)))
    }
}

/// `reverie voices`: what can speak on this machine.
struct Voices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the voices installed on this machine (Piper first, then eSpeak NG).")

    func run() async throws {
        let voices = await SpeechEngines.installed().voices()
        guard !voices.isEmpty else {
            throw CommandFailure("No voices: neither Piper (in .venv) nor eSpeak NG is installed. Run scripts/bootstrap.sh run (make run does).")
        }
        for voice in voices {
            print("\(voice.id)\t\(voice.name)\t\(voice.language)\t\(voice.engine)")
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place; silent when not on a terminal.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let lock = NSLock()

    init(enabled: Bool) { self.enabled = enabled }

    func show(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        lock.lock(); defer { lock.unlock() }
        let width = 30
        let filled = width * done / total
        let line = "\r[\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(done)/\(total) phrases"
        FileHandle.standardError.write(Data(line.utf8))
        shown = true
    }

    private var shown = false

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
        lock.lock(); shown = false; lock.unlock()
    }

    /// Ends the bar's line only when a bar is on it (before printing a line of one's own).
    func finishIfShown() {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        FileHandle.standardError.write(Data("\n".utf8))
        shown = false
    }
}
