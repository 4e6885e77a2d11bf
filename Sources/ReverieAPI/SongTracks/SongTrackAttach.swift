import Foundation

/// `POST /api/compositions/{id}/tracks`: attach one of your Listen music items.
public struct SongTrackAttach: Codable, Sendable, Equatable {
    @LowercaseID public var itemID: UUID
    public init(itemID: UUID) { self.itemID = itemID }
}
