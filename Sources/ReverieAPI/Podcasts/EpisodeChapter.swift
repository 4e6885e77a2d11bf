import Foundation

/// One chapter of an episode, in seconds of the original.
public struct EpisodeChapter: Codable, Sendable, Equatable {
    public var title: String
    public var start: Double
    public var end: Double?
    public var image: String?
    public var url: String?

    public init(title: String, start: Double, end: Double?, image: String?, url: String?) {
        (self.title, self.start, self.end, self.image, self.url) = (title, start, end, image, url)
    }
}
