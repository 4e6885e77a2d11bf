import Foundation

/// `POST /api/podcasts/opml`: what an import did.
public struct OPMLImportResult: Codable, Sendable, Equatable {
    public var added: Int
    public var alreadySubscribed: Int
    public var podcasts: [PodcastInfo]

    public init(added: Int, alreadySubscribed: Int, podcasts: [PodcastInfo]) {
        self.added = added
        self.alreadySubscribed = alreadySubscribed
        self.podcasts = podcasts
    }
}
