import Foundation

/// One chapter of an episode, from a Podcast Index chapters file.
public struct ParsedPodcastChapter: Sendable, Equatable, Codable {
    /// Seconds from the episode's start.
    public var start: Double
    public var end: Double?
    public var title: String
    public var image: String?
    public var url: String?
    /// `false` for a chapter meant for artwork or links only, not the table of contents.
    public var inTableOfContents: Bool

    public init(start: Double, end: Double?, title: String, image: String?, url: String?, inTableOfContents: Bool) {
        (self.start, self.end, self.title, self.image, self.url, self.inTableOfContents) = (start, end, title, image, url, inTableOfContents)
    }
}

/// The Podcast Index JSON chapters format (`podcast:chapters`, `application/json+chapters`).
public enum PodcastChapters {
    static let maximumChapters = 10_000

    /// The chapters in start order; `url` (where the file came from) resolves relative links.
    public static func parse(_ data: Data, url: URL? = nil) throws -> [ParsedPodcastChapter] {
        guard let object = try? JSONSerialization.jsonObject(with: data), let root = object as? [String: Any] else {
            throw FeedError.malformed("the chapters file is not a JSON object")
        }
        guard let list = root["chapters"] as? [Any] else { throw FeedError.malformed("the chapters file has no \"chapters\" list") }
        guard list.count <= maximumChapters else { throw FeedError.tooLarge }
        let chapters: [ParsedPodcastChapter] = list.compactMap { entry in
            guard let chapter = entry as? [String: Any], let start = seconds(chapter["startTime"]), start >= 0 else { return nil }
            let end = seconds(chapter["endTime"]).flatMap { $0 > start ? $0 : nil }
            // Quirk: a chapter without a title (an image-only chapter); it gets an empty title, never a made-up one.
            let title = (chapter["title"] as? String).map(PlainText.line) ?? ""
            return ParsedPodcastChapter(start: start, end: end, title: title, image: FeedParser.absolute(chapter["img"] as? String, url),
                                        url: FeedParser.absolute(chapter["url"] as? String, url), inTableOfContents: (chapter["toc"] as? Bool) ?? true)
        }
        // Quirk: chapters listed out of order; they are put in time order (stable for equal starts).
        return chapters.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    /// A time as a number of seconds, or (a quirk) a string holding one or `h:mm:ss`.
    static func seconds(_ value: Any?) -> Double? {
        // A JSON true or false is an NSNumber too (and 0 and 1 pass `is Bool`): its type code tells them apart.
        if let number = value as? NSNumber, String(cString: number.objCType) != "c" {
            let double = number.doubleValue
            return double.isFinite ? double : nil
        }
        if let text = value as? String { return FeedDates.duration(text) }
        return nil
    }
}
