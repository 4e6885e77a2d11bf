import Foundation

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
