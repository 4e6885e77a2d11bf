import Foundation

/// A meditation or poem a person wrote (or duplicated) for Bedside, as the `bedside_pieces` table
/// holds it: what `BedsidePieceRepository` answers, a value that knows nothing of the database
/// (see `BedsidePieceModel` for the row it is read from). Named apart from Bedside's
/// `BedsidePiece`, the presets that ship with Reverie.
public struct BedsidePieceRecord: Sendable, Equatable {
    public var id: UUID
    /// `meditation` or `poem` (a `BedsidePiece.Kind`'s raw value).
    public var kind: String
    public var title: String
    /// The text as spoken, with its pause markers.
    public var script: String
    /// When it was written; nil only for a row written without Fluent's timestamp.
    public var createdAt: Date?
    /// When it was last edited.
    public var updatedAt: Date?
}
