import Foundation

/// `GET /api/library`: the person's books and music, newest first.
public struct LibraryList: Codable, Sendable, Equatable {
    public var items: [LibraryItemInfo]

    public init(items: [LibraryItemInfo]) {
        self.items = items
    }
}
