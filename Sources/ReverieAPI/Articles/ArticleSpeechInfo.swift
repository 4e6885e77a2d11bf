import Foundation

/// `GET /api/articles/{id}/chapters/{n}/speech`: the chapter as render segments. Render each
/// segment's `script` with `POST /api/speech/renders`; a timeline phrase's `line` (1-based) is
/// spoken from `lines[line - 1]` of the text (UTF-16 units of the whole text).
public struct ArticleSpeechInfo: Codable, Sendable, Equatable {
    public struct Line: Codable, Sendable, Equatable {
        public var location: Int
        public var length: Int
        public init(location: Int, length: Int) { (self.location, self.length) = (location, length) }
    }
    public struct Segment: Codable, Sendable, Equatable {
        public var script: String
        public var lines: [Line]
        public init(script: String, lines: [Line]) { (self.script, self.lines) = (script, lines) }
    }
    public var chapter: Int
    public var segments: [Segment]
    public init(chapter: Int, segments: [Segment]) { (self.chapter, self.segments) = (chapter, segments) }
}
