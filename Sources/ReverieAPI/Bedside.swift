import Foundation

/// A Bedside meditation or poem: a preset (id `poem.innisfree`) or one of the person's own (a UUID).
public struct BedsidePieceInfo: Codable, Sendable, Equatable {
    public var id: String
    /// `meditation` or `poem`.
    public var kind: String
    public var title: String
    /// A poem's author, from its `by …` line; nil for meditations and unsigned pieces.
    public var author: String?
    /// The text as spoken, with its pause markers.
    public var script: String
    /// About how long it lasts at the normal speed, pauses included, in seconds.
    public var estimatedSeconds: Double
    /// Ships with Reverie (cannot be edited or deleted; duplicate it to make it your own).
    public var isPreset: Bool
    /// What the pause-marker reader noticed, with line and column (an unknown unit, a pause over the limit).
    public var warnings: [String]
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(id: String, kind: String, title: String, author: String?, script: String, estimatedSeconds: Double, isPreset: Bool,
                warnings: [String], createdAt: Date?, updatedAt: Date?) {
        self.id = id
        self.kind = kind
        self.title = title
        self.author = author
        self.script = script
        self.estimatedSeconds = estimatedSeconds
        self.isPreset = isPreset
        self.warnings = warnings
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// `GET /api/bedside/pieces?kind=`: the presets of a kind and the person's own (never empty: the
/// default piece comes back when they have deleted all of theirs).
public struct BedsidePieces: Codable, Sendable, Equatable {
    public var presets: [BedsidePieceInfo]
    public var mine: [BedsidePieceInfo]

    public init(presets: [BedsidePieceInfo], mine: [BedsidePieceInfo]) {
        self.presets = presets
        self.mine = mine
    }
}

/// A new piece (`kind` needed) or an edit (`kind` ignored).
public struct BedsidePieceInput: Codable, Sendable, Equatable {
    public var kind: String?
    public var title: String
    public var script: String

    public init(kind: String? = nil, title: String, script: String) {
        self.kind = kind
        self.title = title
        self.script = script
    }
}

/// `POST /api/bedside/next`: which kind to pick a random piece of.
public struct BedsideNextRequest: Codable, Sendable, Equatable {
    public var kind: String

    public init(kind: String) {
        self.kind = kind
    }
}

/// `GET /api/bedside/greeting`: the words of the wake greeting for now, to be spoken.
public struct WakeGreetingInfo: Codable, Sendable, Equatable {
    public var text: String

    public init(text: String) {
        self.text = text
    }
}
