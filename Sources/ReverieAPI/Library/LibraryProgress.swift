import Foundation

/// Where a person is in a library item.
public struct LibraryProgress: Codable, Sendable, Equatable {
    /// Seconds into the file.
    public var position: Double
    /// Heard to the end (and not restarted since).
    public var finished: Bool
    public var at: Date

    public init(position: Double, finished: Bool, at: Date) {
        self.position = position
        self.finished = finished
        self.at = at
    }
}
