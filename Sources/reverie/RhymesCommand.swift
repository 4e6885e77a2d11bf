import ArgumentParser
import Foundation
import ReverieServer
import Rhymes
import Speech

/// `reverie rhymes WORD [--near] [--json]`.
struct RhymesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rhymes",
        abstract: "Words that rhyme with a word, from the CMU Pronouncing Dictionary.",
        discussion: "Perfect rhymes come common words first; --near adds slant rhymes, closest first."
    )

    @Argument(help: "The word (any case; punctuation and possessives are fine).")
    var word: String

    @Flag(help: "Also list near (slant) rhymes.")
    var near = false

    @Flag(help: #"Print {"word", "perfect": [...], "near": [...]} as JSON."#)
    var json = false

    @Option(help: "Where the dictionary index is cached (default: REVERIE_DATA_DIR or data).")
    var dataDir: String?

    /// The engine with its index cached under the data directory.
    static func engine(dataDir: String?) throws -> RhymeEngine {
        let data = ServerConfig.dataDirectory(flag: dataDir, environment: ProcessInfo.processInfo.environment)
        do {
            return try RhymeEngine.installed(cacheDirectory: ServerConfig.cacheDirectory("rhymes", dataDirectory: data),
                                             guess: ESpeakPhonemes.arpabet(for:))
        } catch let error as RhymesError {
            throw CommandFailure(error.description)
        }
    }

    func run() throws {
        let engine = try Self.engine(dataDir: dataDir)
        guard let output = engine.rhymes(of: word, near: near) else {
            throw ValidationError("“\(word)” is not a word: it has no letters to pronounce.")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(output), as: UTF8.self))
            return
        }
        let pronunciations = engine.lookup(output.word)?.pronunciations.map(\.arpabet).joined(separator: " | ") ?? ""
        print("\(output.word)  \(pronunciations)\(output.guessed ? "  (not in the dictionary: pronunciation guessed)" : "")")
        print("perfect (\(output.perfect.count)): " + (output.perfect.isEmpty ? "none" : output.perfect.prefix(60).joined(separator: ", ")
            + (output.perfect.count > 60 ? ", …" : "")))
        if near {
            print("near (\(output.near.count)): " + (output.near.isEmpty ? "none" : output.near.joined(separator: ", ")))
        }
    }
}
