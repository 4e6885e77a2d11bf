import Foundation

/// `POST /api/rhymes/suggestions`: lyrics and the caret, for rhymes of the word the line at the
/// caret should rhyme with.
public struct RhymeSuggestionsRequest: Codable, Sendable, Equatable {
    /// The lyrics; at most 2,000,000 characters.
    public var text: String
    /// UTF-16 offset of the caret in `text`, as the browser reports it.
    public var caret: Int

    public init(text: String, caret: Int) {
        self.text = text
        self.caret = caret
    }
}
