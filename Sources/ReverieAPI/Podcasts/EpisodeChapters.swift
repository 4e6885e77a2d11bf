import Foundation

/// `GET /api/episodes/{episodeID}/chapters`.
public struct EpisodeChapters: Codable, Sendable, Equatable {
    /// `podcast:chapters`, `id3`, `mp4` or `none`.
    public var source: String
    public var chapters: [EpisodeChapter]

    public init(source: String, chapters: [EpisodeChapter]) {
        self.source = source
        self.chapters = chapters
    }
}
