import Foundation
import Testing

/// Media files made for each test by ffmpeg (chapters written through an ffmetadata file), read
/// back by ffprobe for comparison. ffmpeg and ffprobe are real dependencies: the suite needs them.
enum Fixtures {
    struct Chapter {
        let title: String
        /// Milliseconds.
        let start: Int
        let end: Int
    }

    static let chapters = [
        Chapter(title: "Opening", start: 0, end: 1_500),
        Chapter(title: "Chapter Two — Ünïcode 章", start: 1_500, end: 3_250),
        Chapter(title: "The End", start: 3_250, end: 5_000),
    ]

    static let tags: [(String, String)] = [
        ("title", "The Book"), ("artist", "Ada Reader"), ("album", "A Book of Days"), ("album_artist", "Ann Author"),
        ("date", "2021"), ("track", "3/12"), ("disc", "2/2"), ("comment", "Read aloud; with care"),
    ]

    /// A fresh directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// An ffmetadata file with `tags` and `chapters`.
    static func metadata(in directory: URL, tags: [(String, String)] = tags, chapters: [Chapter] = chapters,
                         extra: [(String, String)] = []) throws -> URL {
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "=", with: "\\=")
                .replacingOccurrences(of: ";", with: "\\;").replacingOccurrences(of: "#", with: "\\#")
        }
        var text = ";FFMETADATA1\n"
        for (key, value) in tags + extra { text += "\(key)=\(escaped(value))\n" }
        for chapter in chapters {
            text += "\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(chapter.start)\nEND=\(chapter.end)\ntitle=\(escaped(chapter.title))\n"
        }
        let url = directory.appendingPathComponent("meta-\(UUID().uuidString).txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Five seconds of tone encoded as `name` (the extension picks the muxer), with the metadata
    /// file's tags and chapters and, optionally, a cover picture.
    @discardableResult
    static func make(_ name: String, in directory: URL, seconds: Double = 5, codec: [String], metadata: URL,
                     cover: URL? = nil, options: [String] = []) throws -> URL {
        let output = directory.appendingPathComponent(name)
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-i", metadata.path]
        if let cover { arguments += ["-i", cover.path] }
        arguments += ["-map", "0:a", "-map_metadata", "1", "-map_chapters", "1"]
        if let cover { arguments += ["-map", "2:v", "-c:v", "copy", "-disposition:v", "attached_pic"] }
        arguments += codec + options + [output.path]
        try run("ffmpeg", arguments)
        return output
    }

    /// A small PNG made by ffmpeg.
    static func cover(in directory: URL) throws -> URL {
        let output = directory.appendingPathComponent("cover.png")
        try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x336699:s=48x48", "-frames:v", "1", output.path])
        return output
    }

    // MARK: - ffprobe

    struct Probe {
        var duration: Double
        var chapters: [(title: String, start: Double, end: Double)]
        var tags: [String: String]
    }

    static func probe(_ file: URL) throws -> Probe {
        let output = try run("ffprobe", ["-v", "error", "-show_format", "-show_chapters", "-of", "json", file.path])
        let json = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let format = try #require(json["format"] as? [String: Any])
        let duration = try #require(Double(format["duration"] as? String ?? ""))
        let tags = (format["tags"] as? [String: String]) ?? [:]
        let chapters = (json["chapters"] as? [[String: Any]] ?? []).map { chapter in
            (title: (chapter["tags"] as? [String: String])?["title"] ?? "",
             start: Double(chapter["start_time"] as? String ?? "") ?? -1,
             end: Double(chapter["end_time"] as? String ?? "") ?? -1)
        }
        return Probe(duration: duration, chapters: chapters, tags: tags)
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("\(tool) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self)); ffmpeg is installed by scripts/bootstrap.sh")
        }
        return data
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

// MARK: - Hand-made bytes

/// Builders for files ffmpeg will not write (ID3v2.2, unsynchronised tags, damaged boxes).
enum Bytes {
    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The big-endian number at `at`.
    static func u32Value(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8(value >> 21 & 0x7F), UInt8(value >> 14 & 0x7F), UInt8(value >> 7 & 0x7F), UInt8(value & 0x7F)]
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// `count` silent MPEG-1 layer III frames, 128 kbit/s, 44.1 kHz, stereo (417 bytes each, no padding).
    static func mpegFrames(_ count: Int) -> [UInt8] {
        let frame = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 413)
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// An ID3v2 tag of `version` (2, 3 or 4) around ready-made frames.
    static func id3(version: UInt8, flags: UInt8 = 0, body: [UInt8]) -> [UInt8] {
        Array("ID3".utf8) + [version, 0, flags] + syncsafe(body.count) + body
    }

    /// A text frame: UTF-8 (encoding 3) for v2.4, Latin-1 otherwise, unless `encoding` is given.
    static func textFrame(_ id: String, _ text: String, version: UInt8, encoding: UInt8? = nil, flags: [UInt8] = [0, 0]) -> [UInt8] {
        let chosen = encoding ?? (version == 4 ? 3 : 0)
        let payload: [UInt8]
        switch chosen {
        case 1: payload = [1, 0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case 0: payload = [0] + text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        default: payload = [chosen] + Array(text.utf8)
        }
        return frame(id, payload, version: version, flags: flags)
    }

    static func frame(_ id: String, _ payload: [UInt8], version: UInt8, flags: [UInt8] = [0, 0]) -> [UInt8] {
        switch version {
        case 2: return Array(id.utf8) + [UInt8(payload.count >> 16), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)] + payload
        case 3: return Array(id.utf8) + u32(UInt32(payload.count)) + flags + payload
        default: return Array(id.utf8) + syncsafe(payload.count) + flags + payload
        }
    }

    /// Unsynchronisation: a zero after every 0xFF.
    static func unsynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        for byte in bytes {
            result.append(byte)
            if byte == 0xFF { result.append(0) }
        }
        return result
    }
}
