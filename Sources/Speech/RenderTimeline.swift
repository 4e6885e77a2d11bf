/// Where everything is in a rendered script, in milliseconds from the start of the audio.
public struct RenderTimeline: Codable, Sendable, Equatable {
    public struct Word: Codable, Sendable, Equatable {
        public var text: String
        public var startMs: Int
        public var endMs: Int
    }

    public struct Phrase: Codable, Sendable, Equatable {
        public var text: String
        /// 1-based line in the script.
        public var line: Int
        public var startMs: Int
        public var endMs: Int
        public var words: [Word]
    }

    public struct Pause: Codable, Sendable, Equatable {
        public var startMs: Int
        public var endMs: Int
        /// What the script asked for, in seconds.
        public var seconds: Double
    }

    public struct Warning: Codable, Sendable, Equatable {
        public var line: Int
        public var column: Int
        public var message: String
    }

    public var engine: String
    public var voice: String?
    public var rate: Double
    public var durationMs: Int
    public var phrases: [Phrase]
    public var pauses: [Pause]
    public var warnings: [Warning]

    /// WebVTT captions: one cue per phrase.
    public var webVTT: String {
        var text = "WEBVTT\n"
        for (index, phrase) in phrases.enumerated() {
            text += "\n\(index + 1)\n\(Self.stamp(phrase.startMs)) --> \(Self.stamp(phrase.endMs))\n"
            // A cue's text may not contain "-->" or a blank line.
            text += phrase.text.replacingOccurrences(of: "-->", with: "->") + "\n"
        }
        return text
    }

    static func stamp(_ milliseconds: Int) -> String {
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60, millis = milliseconds % 1000
        func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3))"
    }
}
