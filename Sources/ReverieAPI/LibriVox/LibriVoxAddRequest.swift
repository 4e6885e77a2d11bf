import Foundation

/// `POST /api/librivox/books`: which LibriVox book to add.
public struct LibriVoxAddRequest: Codable, Sendable, Equatable {
    public var id: Int

    public init(id: Int) {
        self.id = id
    }
}
