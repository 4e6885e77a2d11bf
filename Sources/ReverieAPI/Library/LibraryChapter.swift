import Foundation

/// One chapter of a book: a title and a time range in seconds.
public struct LibraryChapter: Codable, Sendable, Equatable {
    public var title: String
    public var start: Double
    public var end: Double
    /// Heard to its end (or marked so): the log's latest word on `library:<book id>/<index>`.
    public var played: Bool
    /// Who read it (a LibriVox section's readers); empty when the file does not say.
    public var readers: [String]

    public init(title: String, start: Double, end: Double, played: Bool = false, readers: [String] = []) {
        self.title = title
        self.start = start
        self.end = end
        self.played = played
        self.readers = readers
    }

}
