import ArgumentParser
import Foundation
import Playback
import ReverieServer
import SleepLibrary

/// `reverie winddown list [--json]`, `render --all | ID…`, `attach ID FILE | --script FILE`, `detach ID`.
struct WindDownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "winddown",
        abstract: "The Wind Down sleep library.",
        subcommands: [List.self, Render.self, Attach.self, Detach.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the catalog by section: id, title, narrator, length, and Coming Soon.")

        @Flag(help: #"Print {"items": [{"id", "title", "narrator", "duration", "type", "description", "audio", …}]} as JSON."#)
        var json = false

        func run() throws {
            let library: SleepLibrary
            do {
                library = try SleepLibrary.bundled()
            } catch {
                throw CommandFailure(error.description)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                struct Output: Encodable { var items: [SleepItem] }
                print(String(decoding: try encoder.encode(Output(items: library.items)), as: UTF8.self))
                return
            }
            for type in SleepContentType.allCases {
                print("\(type.displayName)")
                for item in library.items(of: type) {
                    let minutes = "\(item.duration / 60) min".leftPadded(to: 7)
                    print("  \(item.id.padding(toLength: 26, withPad: " ", startingAt: 0))\(minutes)  \(item.title) — \(item.narrator)\(item.isComingSoon ? "  (Coming Soon)" : "")")
                }
            }
        }
    }

    /// `reverie winddown render --all` or `render ID…`: speaks ahead of time what a server
    /// otherwise speaks on first play.
    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Speak Wind Down items now, rather than on their first play: each item not made yet, with a progress bar.",
            discussion: "Works on the server's data directory (the running server plays each one from its next request). The whole library is about nine hours of audio: on two cores, roughly half an hour with the natural voice."
        )

        @Flag(help: "Every item in the catalog that has audio.")
        var all = false

        @Argument(help: "Items to speak (see `reverie winddown list`).")
        var ids: [String] = []

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard all != !ids.isEmpty else { throw ValidationError("Give --all, or the ids of the items to speak.") }
        }

        func run() async throws {
            let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
            let bar = ProgressBar(enabled: isatty(STDERR_FILENO) != 0)
            let started = Date()
            try await ServerRunner.withApplication(config, logLevel: .warning) { app in
                do {
                    let result = try await app.sleepAttachments.render(all ? nil : ids, starting: { index, count, item in
                        bar.finishIfShown()
                        print("[\(index + 1)/\(count)] \(item.title) (\(ListeningProgress.clock(Double(item.duration))))")
                    }, progress: { done, total in bar.show(done: done, total: total) })
                    bar.finishIfShown()
                    let minutes = Int(Date().timeIntervalSince(started) / 60)
                    print("Spoke \(result.made) item\(result.made == 1 ? "" : "s") in \(minutes) min; \(result.kept) \(result.kept == 1 ? "was" : "were") already made.")
                } catch {
                    throw CommandFailure(error)
                }
            }
        }
    }

    /// `reverie winddown attach ID FILE` or `--script FILE`: the owner's way to make a Coming Soon item real.
    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a Wind Down item audio: a file (MP3, M4A, Ogg or WAV, levelled to −16 LUFS) or a script spoken over the sleep bed.",
            discussion: "Works on the server's data directory; the running server plays it from its next request. A script is rendered before the command returns."
        )

        @Argument(help: "The item's id (see `reverie winddown list`).")
        var id: String

        @Argument(help: "An audio file to use.")
        var file: String?

        @Option(help: "A script file with pause markers to speak instead.")
        var script: String?

        @OptionGroup var storage: StorageOptions

        func validate() throws {
            guard (file == nil) != (script == nil) else { throw ValidationError("Give either an audio file or --script FILE.") }
        }

        func run() async throws {
            let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
            try await ServerRunner.withApplication(config, logLevel: .warning) { app in
                do {
                    if let file {
                        guard FileManager.default.isReadableFile(atPath: file) else { throw CommandFailure("Cannot read \(file): no such file, or it is not readable.") }
                        let url = URL(fileURLWithPath: file)
                        let attachment = try await app.sleepAttachments.attachUpload(itemID: id, file: url, originalName: url.lastPathComponent)
                        print("\(id) now plays \(url.lastPathComponent) (\(ListeningProgress.clock(Double(attachment.durationMs ?? 0) / 1000)), levelled to −16 LUFS).")
                    } else if let script {
                        guard let data = FileManager.default.contents(atPath: script) else { throw CommandFailure("Cannot read \(script): no such file, or it is not readable.") }
                        try await app.sleepAttachments.attachScript(itemID: id, script: String(decoding: data, as: UTF8.self))
                        let milliseconds = try await app.sleepAttachments.make(itemID: id)
                        print("\(id) now plays the script, spoken over the sleep bed (\(ListeningProgress.clock(Double(milliseconds) / 1000))).")
                    }
                } catch {
                    throw CommandFailure(error)
                }
            }
        }
    }

    /// `reverie winddown detach ID`.
    struct Detach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the audio the owner gave a Wind Down item (it shows as Coming Soon again).")

        @Argument(help: "The item's id.")
        var id: String

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
            try await ServerRunner.withApplication(config, logLevel: .warning) { app in
                guard try await app.sleepAttachments.detach(itemID: id) else { throw CommandFailure("\(id) has no audio of the owner's to remove.") }
                print("\(id) is back to what the catalog gives it.")
            }
        }
    }
}
