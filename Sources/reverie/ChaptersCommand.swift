import ArgumentParser
import Foundation
import MediaFormats

/// `reverie chapters FILE... [--json]`: what `MediaFormats` reads from each file.
struct ChaptersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapters",
        abstract: "Show the chapters, duration, tags and artwork that Reverie reads from MP3, M4A and M4B files.",
        discussion: "Many files can be read in one run. A file that cannot be read is reported and the rest are still read; the exit status is then 1."
    )

    @Argument(help: "One or more audio files.")
    var files: [String]

    @Flag(help: #"Print one JSON object per file, one per line: {"file", "format", "duration", "tags", "artwork", "chapters": [{"title", "start", "end"}]} (times in seconds)."#)
    var json = false

    /// The JSON printed for one file.
    struct Report: Encodable {
        struct Artwork: Encodable {
            let mimeType: String
            let bytes: Int
        }

        let file: String
        let format: String
        let duration: Double
        let tags: ParsedTags
        let artwork: Artwork?
        let chapters: [ParsedChapter]

        init(file: String, media: ParsedMedia) {
            self.file = file
            format = media.format.rawValue
            duration = media.duration
            tags = media.tags
            artwork = media.artwork.map { Artwork(mimeType: $0.mimeType, bytes: $0.data.count) }
            chapters = media.chapters
        }
    }

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var failures = 0
        for file in files {
            let media: ParsedMedia
            do {
                media = try MediaFile.parse(path: file)
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(file): \(error)\n".utf8))
                continue
            }
            if json {
                print(String(decoding: try encoder.encode(Report(file: file, media: media)), as: UTF8.self))
                continue
            }
            if files.count > 1 { print(file) }
            let names = [media.tags.title, media.tags.artist ?? media.tags.albumArtist].compactMap { $0 }
            print("\(media.format == .mp4 ? "MP4" : "MP3"), \(Self.clock(media.duration))\(names.isEmpty ? "" : "  " + names.joined(separator: " — "))")
            if let artwork = media.artwork { print("artwork: \(artwork.mimeType), \(artwork.data.count) bytes") }
            if media.chapters.isEmpty { print("no chapters") }
            for (index, chapter) in media.chapters.enumerated() {
                print("\(String(index + 1).leftPadded(to: 4))  \(Self.clock(chapter.start))  \(chapter.title.isEmpty ? "(untitled)" : chapter.title)")
            }
            if files.count > 1 { print("") }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Seconds as h:mm:ss.mmm.
    static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60, secs = milliseconds / 1000 % 60
        return String(format: "%d:%02d:%02d.%03d", hours, minutes, secs, milliseconds % 1000)
    }
}
