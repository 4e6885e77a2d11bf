import Foundation

/// A voice the server can speak with (`GET /api/speech/voices`, and health's speech part).
///
/// The `Speech` engine's `Voice` has the same fields; the server makes this from it in one place
/// (`VoiceInfo+Voice.swift`), so that the engines need not know the wire types and this module
/// depends on nothing.
public struct VoiceInfo: Codable, Sendable, Equatable {
    /// What a render asks for (`en-us`, `joe`).
    public var id: String
    /// What a person is shown.
    public var name: String
    /// BCP 47 language, such as `en-US`.
    public var language: String
    /// The engine that speaks it: `piper` or `espeak-ng`.
    public var engine: String
    public init(id: String, name: String, language: String, engine: String) {
        self.id = id
        self.name = name
        self.language = language
        self.engine = engine
    }
}
