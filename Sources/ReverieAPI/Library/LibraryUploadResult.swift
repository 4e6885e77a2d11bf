import Foundation

/// `POST /api/library`: the item the upload became, and whether the person already had this file
/// (the same bytes, found by their content hash), in which case nothing new was added.
public struct LibraryUploadResult: Codable, Sendable, Equatable {
    public var item: LibraryItemInfo
    public var duplicate: Bool

    public init(item: LibraryItemInfo, duplicate: Bool) {
        self.item = item
        self.duplicate = duplicate
    }
}
