import Foundation

/// A voice the server can speak with.
public struct VoiceInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var language: String
    public var engine: String
    public init(id: String, name: String, language: String, engine: String) {
        self.id = id
        self.name = name
        self.language = language
        self.engine = engine
    }
}
