import Foundation
import SpokenScript

/// Bedside's preset pieces: meditations of our own writing and public-domain poems, each a script
/// with pause markers (`Title (0.3s)`, `by Author (2s)`, a pause after each line and stanza), and
/// the default meditation and poem a person gets back when they delete all of their own.
public struct BedsideLibrary: Sendable {
    public let meditations: [BedsidePiece]
    public let poems: [BedsidePiece]
    /// Given back to a person who has deleted every meditation of their own.
    public let defaultMeditation: BedsidePiece
    /// Given back to a person who has deleted every poem of their own.
    public let defaultPoem: BedsidePiece

    public init(meditations: [BedsidePiece], poems: [BedsidePiece], defaultMeditation: BedsidePiece, defaultPoem: BedsidePiece) {
        self.meditations = meditations
        self.poems = poems
        self.defaultMeditation = defaultMeditation
        self.defaultPoem = defaultPoem
    }

    /// The presets of one kind.
    public func presets(_ kind: BedsidePiece.Kind) -> [BedsidePiece] {
        kind == .meditation ? meditations : poems
    }

    /// A preset by id (`poem.innisfree`, `meditation.night_sky`).
    public func preset(_ id: String) -> BedsidePiece? {
        (meditations + poems).first { $0.id == id }
    }

    /// The library in this module's resources: `meditations/*.txt`, `poems/*.txt` and the two defaults.
    public static func bundled() throws -> BedsideLibrary {
        guard let root = Bundle.module.resourceURL?.appendingPathComponent("bedside") else { throw BedsideError.missingResources }
        func pieces(_ folder: String, _ kind: BedsidePiece.Kind) throws -> [BedsidePiece] {
            let directory = root.appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") }.sorted()
            return try names.map { name in
                try BedsidePiece(kind: kind, name: String(name.dropLast(4)), script: String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
        }
        func single(_ name: String, _ kind: BedsidePiece.Kind) throws -> BedsidePiece {
            try BedsidePiece(kind: kind, name: name, script: String(contentsOf: root.appendingPathComponent("\(name).txt"), encoding: .utf8))
        }
        return BedsideLibrary(meditations: try pieces("meditations", .meditation), poems: try pieces("poems", .poem),
                              defaultMeditation: try single("default_meditation", .meditation), defaultPoem: try single("default_poem", .poem))
    }

    /// Where each poem comes from and why it is in the public domain (`poems/SOURCES.md`).
    public static func poemSources() throws -> String {
        guard let url = Bundle.module.url(forResource: "SOURCES", withExtension: "md", subdirectory: "bedside/poems") else {
            throw BedsideError.missingResources
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}

/// One meditation or poem: its script, and the title and author its first lines name.
public struct BedsidePiece: Sendable, Equatable, Codable, Identifiable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case meditation
        case poem
    }

    /// `meditation.<name>` or `poem.<name>`.
    public var id: String
    public var kind: Kind
    public var title: String
    /// The `by …` line of a poem, without `by`; nil for a meditation.
    public var author: String?
    /// The text as spoken, pause markers and all.
    public var script: String
    /// About how long it lasts spoken at the normal rate, pauses included.
    public var estimatedSeconds: Double

    /// Reads a piece from its script: the first phrase is the title; a poem's second line, `by …`, its author.
    public init(kind: Kind, name: String, script: String) throws {
        let parsed = try ScriptParser().parse(script)
        guard let first = parsed.phrases.first else { throw SpokenScriptError.nothingToSay }
        self.id = "\(kind.rawValue).\(name)"
        self.kind = kind
        self.title = first.text
        self.author = Self.author(of: parsed)
        self.script = script
        self.estimatedSeconds = parsed.estimatedSeconds()
    }

    /// The author a script names on its second phrase, `by …` (the seed's `Title (0.3s)` / `by Author (2s)`).
    public static func author(of parsed: ParsedScript) -> String? {
        parsed.phrases.dropFirst().first.flatMap { $0.text.hasPrefix("by ") ? String($0.text.dropFirst(3)) : nil }
    }
}

public enum BedsideError: Error, CustomStringConvertible {
    case missingResources

    public var description: String {
        switch self {
        case .missingResources: "Bedside's presets are missing from the build; build Reverie again."
        }
    }
}
