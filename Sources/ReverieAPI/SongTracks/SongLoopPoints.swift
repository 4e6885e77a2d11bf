import Foundation

/// A and B in seconds from the start of the track, and whether the loop is on. Saved with the
/// song (`PUT /api/compositions/{id}/tracks/{trackID}/loop`).
public struct SongLoopPoints: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double
    public var enabled: Bool

    public init(start: Double, end: Double, enabled: Bool) {
        self.start = start
        self.end = end
        self.enabled = enabled
    }
}
