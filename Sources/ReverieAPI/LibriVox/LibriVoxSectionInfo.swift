import Foundation

/// One section (chapter) of a LibriVox book, with who read it.
public struct LibriVoxSectionInfo: Codable, Sendable, Equatable {
    public var number: Int
    public var title: String
    public var readers: [String]
    public var seconds: Double
    /// The section's MP3 on LibriVox's servers.
    public var listenURL: String

    public init(number: Int, title: String, readers: [String], seconds: Double, listenURL: String) {
        self.number = number
        self.title = title
        self.readers = readers
        self.seconds = seconds
        self.listenURL = listenURL
    }
}
