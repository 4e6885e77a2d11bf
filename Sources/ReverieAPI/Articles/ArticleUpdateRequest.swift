import Foundation

/// `PATCH /api/articles/{id}`: where the person is, or that they finished (or not).
public struct ArticleUpdateRequest: Codable, Sendable, Equatable {
    public var lastReadChapter: Int?
    public var lastReadPosition: Int?
    public var finished: Bool?
    public init(lastReadChapter: Int? = nil, lastReadPosition: Int? = nil, finished: Bool? = nil) {
        (self.lastReadChapter, self.lastReadPosition, self.finished) = (lastReadChapter, lastReadPosition, finished)
    }
}
