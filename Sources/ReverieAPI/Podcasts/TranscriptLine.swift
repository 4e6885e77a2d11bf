import Foundation

/// One line of a transcript, in seconds of the original.
///
/// The `Feeds` engine's `ParsedCue` has the same fields; the server makes this from it in one
/// place (`TranscriptLine+ParsedCue.swift`), so that the engines need not know the wire types and
/// this module depends on nothing.
public struct TranscriptLine: Codable, Sendable, Equatable {
    /// Seconds from the episode's start.
    public var start: Double
    /// Seconds from the episode's start; nil when the transcript gives only starts.
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double, end: Double?, speaker: String?, text: String) {
        (self.start, self.end, self.speaker, self.text) = (start, end, speaker, text)
    }
}
