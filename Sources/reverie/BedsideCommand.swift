import ArgumentParser
import Bedside
import Foundation
import Playback

/// `reverie bedside poems list`, `reverie bedside meditations list [--json]`: Bedside's presets.
struct BedsideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bedside",
        abstract: "Bedside's preset meditations and poems.",
        subcommands: [Poems.self, Meditations.self]
    )

    struct Poems: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The preset poems.", subcommands: [List.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the preset poems: id, length, title and author.")
            @Flag(help: #"Print {"pieces": [{"id", "kind", "title", "author", "estimatedSeconds", "script"}]} as JSON."#)
            var json = false

            func run() throws { try BedsideCommand.list(.poem, json: json) }
        }
    }

    struct Meditations: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The preset meditations.", subcommands: [List.self])

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the preset meditations: id, length and title.")
            @Flag(help: #"Print {"pieces": [{"id", "kind", "title", "estimatedSeconds", "script"}]} as JSON."#)
            var json = false

            func run() throws { try BedsideCommand.list(.meditation, json: json) }
        }
    }

    static func list(_ kind: BedsidePiece.Kind, json: Bool) throws {
        let library: BedsideLibrary
        do {
            library = try BedsideLibrary.bundled()
        } catch {
            throw CommandFailure("\(error)")
        }
        let pieces = library.presets(kind)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            struct Output: Encodable { var pieces: [BedsidePiece] }
            print(String(decoding: try encoder.encode(Output(pieces: pieces)), as: UTF8.self))
            return
        }
        for piece in pieces {
            let length = "~\(ListeningProgress.clock(piece.estimatedSeconds))".leftPadded(to: 7)
            print("\(piece.id.padding(toLength: 38, withPad: " ", startingAt: 0))\(length)  \(piece.title)\(piece.author.map { " — \($0)" } ?? "")")
        }
    }
}
