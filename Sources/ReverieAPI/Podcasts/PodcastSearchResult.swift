import Foundation

/// `GET /api/podcasts/search`.
public struct PodcastSearchResult: Codable, Sendable, Equatable {
    public var results: [PodcastFound]
    /// Directories that could not be asked, and why (the other's results still come).
    public var problems: [String]

    public init(results: [PodcastFound], problems: [String]) {
        self.results = results
        self.problems = problems
    }
}
