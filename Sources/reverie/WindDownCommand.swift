import ArgumentParser
import Foundation
import SleepLibrary

/// `reverie winddown list [--json]`.
struct WindDownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "winddown",
        abstract: "The Wind Down sleep library.",
        subcommands: [List.self]
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
}
