import Foundation

/// `PUT /api/winddown/{id}/script`: a script of the owner's to speak as a Coming Soon item's audio.
public struct SleepScriptRequest: Codable, Sendable, Equatable {
    /// Script text with optional pause markers, as for a speech render.
    public var script: String

    public init(script: String) {
        self.script = script
    }
}
