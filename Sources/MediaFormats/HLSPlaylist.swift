import Foundation

/// An HLS playlist (RFC 8216), as far as a radio relay needs it: a master playlist's variants,
/// or a media playlist's segments in order. Bytes come from a station's server, so every count
/// and number is bounded, and anything that is not a playlist is refused.
public enum HLSPlaylist: Sendable, Equatable {
    case master([Variant])
    case media(Media)

    /// One of a master playlist's streams (`#EXT-X-STREAM-INF` and the URI after it).
    public struct Variant: Sendable, Equatable {
        public var uri: String
        public var bandwidth: Int?
        /// `CODECS`, as listed (`mp4a.40.2`, `avc1.64001f,mp4a.40.2`).
        public var codecs: String?

        /// True when the listed codecs are sound only (no picture to download for nothing).
        public var audioOnly: Bool {
            guard let codecs else { return false }
            let names = codecs.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            return !names.isEmpty && names.allSatisfy { $0.hasPrefix("mp4a") || $0.hasPrefix("mp3") || $0.hasPrefix("ac-3") || $0.hasPrefix("ec-3") || $0.hasPrefix("opus") || $0.hasPrefix("flac") }
        }
    }

    /// One media segment: its URI, its length in seconds, and its media sequence number.
    public struct Segment: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        public var sequence: Int
    }

    public struct Media: Sendable, Equatable {
        /// `#EXT-X-TARGETDURATION`: the longest a segment is, so how often a live list is read again.
        public var targetDuration: Double
        public var segments: [Segment]
        /// `#EXT-X-ENDLIST`: no segments will be added.
        public var ended: Bool
        /// `#EXT-X-MAP`'s URI: the initialization section fragmented MP4 segments need first.
        public var initialization: String?
        /// A `#EXT-X-KEY` with a method other than NONE: the segments are encrypted.
        public var encrypted: Bool
    }

    /// The most lines, variants and segments read from one playlist.
    public static let maximumBytes = 1 << 20
    public static let maximumEntries = 20_000

    /// Parses the playlist in `data` (UTF-8, as RFC 8216 requires).
    public static func parse(_ data: Data) throws -> HLSPlaylist {
        guard data.count <= maximumBytes else { throw MediaFormatsError.tooLarge("a playlist over \(maximumBytes >> 20) MB") }
        guard let text = String(data: data, encoding: .utf8) else { throw MediaFormatsError.malformed("the playlist is not UTF-8 text") }
        var lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }[...]
        if var first = lines.first, first.hasPrefix("\u{FEFF}") { first.removeFirst(); lines[lines.startIndex] = first }
        guard lines.first == "#EXTM3U" else { throw MediaFormatsError.malformed("a playlist begins with #EXTM3U") }
        lines.removeFirst()

        var variants: [Variant] = []
        var segments: [Segment] = []
        var pendingVariant: Variant?
        var pendingDuration: Double?
        var targetDuration: Double?
        var sequence = 0
        var ended = false
        var initialization: String?
        var encrypted = false
        for line in lines {
            guard variants.count + segments.count < maximumEntries else { throw MediaFormatsError.tooLarge("more than \(maximumEntries) entries in a playlist") }
            if line.hasPrefix("#") {
                let (tag, value) = split(line)
                switch tag {
                case "#EXT-X-STREAM-INF":
                    let attributes = Self.attributes(value)
                    pendingVariant = Variant(uri: "", bandwidth: attributes["BANDWIDTH"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil },
                                             codecs: attributes["CODECS"])
                case "#EXTINF":
                    let number = value.split(separator: ",", maxSplits: 1).first.map(String.init) ?? value
                    guard let duration = Double(number.trimmingCharacters(in: .whitespaces)), duration.isFinite, (0...3600).contains(duration) else {
                        throw MediaFormatsError.malformed("a segment's length (#EXTINF) is not a number of seconds")
                    }
                    pendingDuration = duration
                case "#EXT-X-TARGETDURATION":
                    guard let seconds = Double(value), seconds.isFinite, (0...3600).contains(seconds) else {
                        throw MediaFormatsError.malformed("#EXT-X-TARGETDURATION is not a number of seconds")
                    }
                    targetDuration = seconds
                case "#EXT-X-MEDIA-SEQUENCE":
                    guard let number = Int(value), number >= 0, number < Int(Int32.max) else {
                        throw MediaFormatsError.malformed("#EXT-X-MEDIA-SEQUENCE is not a whole number")
                    }
                    // (It numbers the list's first segment: once segments came, it says nothing.)
                    if segments.isEmpty { sequence = number }
                case "#EXT-X-ENDLIST":
                    ended = true
                case "#EXT-X-MAP":
                    initialization = Self.attributes(value)["URI"]
                case "#EXT-X-KEY":
                    if let method = Self.attributes(value)["METHOD"], method != "NONE" { encrypted = true }
                default:
                    break   // other tags (and comments) say nothing a relay needs
                }
                continue
            }
            // A URI line: the variant's or the segment's the tags before it described.
            if var variant = pendingVariant {
                variant.uri = line
                variants.append(variant)
                pendingVariant = nil
            } else if let duration = pendingDuration {
                segments.append(Segment(uri: line, duration: duration, sequence: sequence + segments.count))
                pendingDuration = nil
            }
        }
        if !variants.isEmpty {
            guard segments.isEmpty else { throw MediaFormatsError.malformed("a playlist lists both streams and segments") }
            return .master(variants)
        }
        guard let targetDuration else { throw MediaFormatsError.malformed("a media playlist needs #EXT-X-TARGETDURATION") }
        return .media(Media(targetDuration: targetDuration, segments: segments, ended: ended, initialization: initialization, encrypted: encrypted))
    }

    /// The variant a radio relay takes: sound only when there is one, then the lowest bandwidth
    /// (a phone's data; the sound of a radio stream is the same in each).
    public static func preferred(_ variants: [Variant]) -> Variant? {
        let audio = variants.filter(\.audioOnly)
        let pool = audio.isEmpty ? variants : audio
        return pool.min { ($0.bandwidth ?? Int.max) < ($1.bandwidth ?? Int.max) }
    }

    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }

    /// An attribute list (`BANDWIDTH=128000,CODECS="mp4a.40.2"`): names to values, quotes removed.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var index = text.startIndex
        while index < text.endIndex, result.count < 64 {
            guard let equals = text[index...].firstIndex(of: "=") else { break }
            let name = text[index..<equals].trimmingCharacters(in: .whitespaces)
            var cursor = text.index(after: equals)
            let value: Substring
            if cursor < text.endIndex, text[cursor] == "\"" {
                let start = text.index(after: cursor)
                let end = text[start...].firstIndex(of: "\"") ?? text.endIndex
                value = text[start..<end]
                cursor = end < text.endIndex ? text.index(after: end) : end
            } else {
                let end = text[cursor...].firstIndex(of: ",") ?? text.endIndex
                value = text[cursor..<end]
                cursor = end
            }
            if !name.isEmpty { result[name] = String(value) }
            guard let comma = text[cursor...].firstIndex(of: ",") else { break }
            index = text.index(after: comma)
        }
        return result
    }
}
