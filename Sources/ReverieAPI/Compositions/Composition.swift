import Foundation

/// A song being written.
public struct Composition: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    public var title: String
    public var lyrics: String
    /// Goes up by one with every saved edit; send it back as `If-Match` when saving.
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var lastOpenedAt: Date?
    /// A theme for this song only (the seed's `themeOverride`).
    public var themeOverride: Theme?
    /// When this is a conflict copy: the composition whose save it lost to.
    @LowercaseOptionalID public var conflictOf: UUID?
    /// The rhyme analysis of these lyrics as JSON (`POST /api/rhymes/analyze`'s answer), made on
    /// the first open of each version, so an editor can light up the rhymes before asking; nil in
    /// save answers and when rhymes are unavailable.
    public var rhymeAnalysisCache: String?

    public init(id: UUID, title: String, lyrics: String, version: Int, createdAt: Date, updatedAt: Date, lastOpenedAt: Date?,
                themeOverride: Theme?, conflictOf: UUID?, rhymeAnalysisCache: String? = nil) {
        self.id = id
        self.title = title
        self.lyrics = lyrics
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastOpenedAt = lastOpenedAt
        self.themeOverride = themeOverride
        self.conflictOf = conflictOf
        self.rhymeAnalysisCache = rhymeAnalysisCache
    }
}
