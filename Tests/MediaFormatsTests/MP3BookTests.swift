import Foundation
@testable import MediaFormats
import Testing

@Suite("A book of many MP3 files")
struct MP3BookTests {
    /// An MP3 part made by ffmpeg.
    func part(_ name: String, in directory: URL, seconds: Double, title: String?, track: String?, disc: String? = nil, rate: Int = 44_100) throws -> MP3Book.Part {
        let url = directory.appendingPathComponent(name)
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=\(seconds)", "-ar", "\(rate)", "-c:a", "libmp3lame", "-b:a", "64k"]
        if let title { arguments += ["-metadata", "title=\(title)"] }
        if let track { arguments += ["-metadata", "track=\(track)"] }
        if let disc { arguments += ["-metadata", "disc=\(disc)"] }
        try Fixtures.run("ffmpeg", arguments + [url.path])
        return MP3Book.Part(path: url.path, media: try MediaFile.parse(path: url.path))
    }

    @Test("parts are ordered by disc, then track, then natural file name")
    func order() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [
            try part("10 ten.mp3", in: directory, seconds: 0.5, title: nil, track: nil),
            try part("2 two.mp3", in: directory, seconds: 0.5, title: nil, track: nil),
            try part("b.mp3", in: directory, seconds: 0.5, title: "Disc 2, first", track: "1", disc: "2"),
            try part("a.mp3", in: directory, seconds: 0.5, title: "Disc 1, second", track: "2", disc: "1"),
            try part("z.mp3", in: directory, seconds: 0.5, title: "Disc 1, first", track: "1/9", disc: "1"),
        ]
        #expect(MP3Book.ordered(parts).map(\.title) == ["Disc 1, first", "Disc 1, second", "Disc 2, first", "2 two", "10 ten"])
    }

    @Test("joined into one MP3 whose chapters are the parts; ffmpeg decodes every frame of it")
    func join() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [
            try part("1.mp3", in: directory, seconds: 1.5, title: "Chapter One", track: "1"),
            try part("2.mp3", in: directory, seconds: 2.25, title: "Chapter Two", track: "2"),
            try part("3.mp3", in: directory, seconds: 1, title: nil, track: "3"),
        ]
        let output = directory.appendingPathComponent("book.mp3").path
        let chapters = try MP3Book.join(parts, to: output)
        #expect(chapters.map(\.title) == ["Chapter One", "Chapter Two", "3"])
        let total = parts.map(\.media.duration).reduce(0, +)
        #expect(abs(chapters[1].start - parts[0].media.duration) < 1e-9 && abs(chapters[2].end - total) < 1e-9)

        let joined = try MediaFile.parse(path: output)
        #expect(abs(joined.duration - total) < 0.001, "ours \(joined.duration), parts \(total)")
        #expect(joined.tags == ParsedTags(), "the parts' tags are left out")
        let counted = try Fixtures.run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", output])
        let packets = try #require(Double(String(decoding: counted, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(packets * 1152 / 44_100 - total) < 0.001, "ffmpeg reads every frame: \(packets)")
    }

    @Test("parts of different sample rates are refused with a way out")
    func mixedRates() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let parts = [try part("1.mp3", in: directory, seconds: 0.5, title: nil, track: nil),
                     try part("2.mp3", in: directory, seconds: 0.5, title: nil, track: nil, rate: 22_050)]
        #expect(throws: MediaFormatsError.malformed("the parts have different sample rates (44100 and 22050 Hz); convert them to one rate first")) {
            try MP3Book.join(parts, to: directory.appendingPathComponent("book.mp3").path)
        }
    }
}
