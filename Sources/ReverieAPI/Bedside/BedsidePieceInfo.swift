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
