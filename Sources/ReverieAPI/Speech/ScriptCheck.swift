import Foundation

/// What the script reader makes of a script: how many phrases and pauses, about how long it will
/// last, and what it noticed, with line and column.
public struct ScriptCheck: Codable, Sendable, Equatable {
    public var phrases: Int
    public var pauses: Int
    public var pauseSeconds: Double
    public var estimatedSeconds: Double
    /// Whether the author wrote markers; without any, pauses are added after lines and sentences.
    public var hasMarkers: Bool
    public var warnings: [SpeechRenderInfo.Warning]

    public init(phrases: Int, pauses: Int, pauseSeconds: Double, estimatedSeconds: Double, hasMarkers: Bool, warnings: [SpeechRenderInfo.Warning]) {
        self.phrases = phrases
        self.pauses = pauses
        self.pauseSeconds = pauseSeconds
        self.estimatedSeconds = estimatedSeconds
        self.hasMarkers = hasMarkers
        self.warnings = warnings
    }
}
