import Foundation

/// `POST /api/compositions` and `PUT /api/compositions/{id}`.
public struct CompositionInput: Codable, Sendable, Equatable {
    public var title: String
    public var lyrics: String
    public var themeOverride: Theme?

    public init(title: String, lyrics: String, themeOverride: Theme? = nil) {
        self.title = title
        self.lyrics = lyrics
        self.themeOverride = themeOverride
    }
}
