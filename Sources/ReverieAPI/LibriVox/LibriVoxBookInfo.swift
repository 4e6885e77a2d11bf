import Foundation

/// A LibriVox book as the catalog describes it: its sections are its chapters.
public struct LibriVoxBookInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var authors: [String]
    /// Plain text, at most 1,000 characters.
    public var description: String?
    public var language: String?
    /// The whole book's length in seconds.
    public var seconds: Double
    /// The book's page on LibriVox.
    public var pageURL: String?
    public var coverURL: String?
    public var sections: [LibriVoxSectionInfo]

    public init(id: Int, title: String, authors: [String], description: String?, language: String?, seconds: Double,
                pageURL: String?, coverURL: String?, sections: [LibriVoxSectionInfo]) {
        self.id = id
        self.title = title
        self.authors = authors
        self.description = description
        self.language = language
        self.seconds = seconds
        self.pageURL = pageURL
        self.coverURL = coverURL
        self.sections = sections
    }
}
