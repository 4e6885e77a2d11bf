import Foundation

/// `GET /api/episodes/{episodeID}/transcript`.
public struct EpisodeTranscript: Codable, Sendable, Equatable {
    public var lines: [TranscriptLine]

    public init(lines: [TranscriptLine]) {
        self.lines = lines
    }
}
