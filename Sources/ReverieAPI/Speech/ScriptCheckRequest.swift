import Foundation

/// `POST /api/speech/check`: a script to read without speaking it (an editor's live check).
public struct ScriptCheckRequest: Codable, Sendable, Equatable {
    public var text: String
    /// The speed it will be spoken at, 0.8 to 1.2 (1 when absent).
    public var rate: Double?

    public init(text: String, rate: Double? = nil) {
        self.text = text
        self.rate = rate
    }
}
