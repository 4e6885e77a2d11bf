import Foundation

/// One line of a transcript, in seconds of the original.
public struct TranscriptLine: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double, end: Double?, speaker: String?, text: String) {
        (self.start, self.end, self.speaker, self.text) = (start, end, speaker, text)
    }
}
