import Foundation

/// `POST /api/rhymes/analyze`: lyrics to find the rhymes of (every line's rhyme key and scheme).
public struct RhymesAnalyzeRequest: Codable, Sendable, Equatable {
    /// The lyrics; at most 2,000,000 characters.
    public var text: String

    public init(text: String) {
        self.text = text
    }
}
