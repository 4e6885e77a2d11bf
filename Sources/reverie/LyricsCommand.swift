import ArgumentParser
import Foundation
import Rhymes

/// `reverie lyrics analyze FILE|- [--json]`.
struct LyricsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lyrics",
        abstract: "Work with lyrics.",
        subcommands: [Analyze.self]
    )

    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each line's rhyme-scheme letter and syllables, and the rhyme groups.",
            discussion: "Stanzas are separated by blank lines; letters restart in each stanza."
        )

        @Argument(help: "The lyrics file, or - for standard input.")
        var input: String

        @Flag(help: #"Print {"lines": [{"text", "scheme", "syllables"}], "groups": [...]} as JSON."#)
        var json = false

        @Option(help: "Where the dictionary index is cached (default: REVERIE_DATA_DIR or data).")
        var dataDir: String?

        func run() throws {
            let text: String
            if input == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let data = FileManager.default.contents(atPath: input) else { throw CommandFailure("Cannot read \(input): no such file, or it is not readable.") }
                text = String(decoding: data, as: UTF8.self)
            }
            let engine = try RhymesCommand.engine(dataDir: dataDir)
            var analysis = engine.analyze(text)
            // A file's final newline is not a line of its own.
            if text.hasSuffix("\n"), analysis.lines.last?.text.isEmpty == true { analysis.lines.removeLast() }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(analysis), as: UTF8.self))
                return
            }
            for line in analysis.lines {
                if line.text.trimmingCharacters(in: .whitespaces).isEmpty {
                    print("")
                    continue
                }
                let letter = (line.scheme ?? "").padding(toLength: 3, withPad: " ", startingAt: 0)
                let count = String(line.syllables).leftPadded(to: 3)
                print("\(letter)\(count)  \(line.text)")
            }
            if !analysis.groups.isEmpty { print("") }
            for group in analysis.groups {
                let words = group.occurrences.map { "\($0.word)\($0.type == "near" && group.type == "end" ? "~" : "") (\($0.line + 1))" }
                print("group \(group.id) [\(group.type), \(group.key)]: \(words.joined(separator: ", "))")
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
