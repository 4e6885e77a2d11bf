import Foundation

/// `POST /api/compositions` and `PUT /api/compositions/{id}`.
public struct CompositionInput: Codable, Sendable, Equatable {
    public var title: String
    public var lyrics: String
    public var themeOverride: Theme?
    /// `POST /api/compositions` only: an id the device made for a new song, so that sending it
    /// again (a retry, a second tab) answers the song made the first time instead of a second one.
    public var id: UUID?

    public init(title: String, lyrics: String, themeOverride: Theme? = nil, id: UUID? = nil) {
        self.title = title
        self.lyrics = lyrics
        self.themeOverride = themeOverride
        self.id = id
    }
}
