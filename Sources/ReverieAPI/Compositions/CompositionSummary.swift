import Foundation

/// One row of the compositions list.
public struct CompositionSummary: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    public var title: String
    public var version: Int
    public var updatedAt: Date
    /// The first non-empty line of the lyrics, or — when searching — the text around the hit.
    public var snippet: String

    public init(id: UUID, title: String, version: Int, updatedAt: Date, snippet: String) {
        self.id = id
        self.title = title
        self.version = version
        self.updatedAt = updatedAt
        self.snippet = snippet
    }
}
