import Foundation
@testable import MediaFormats
import Testing

/// Files written by ffmpeg, read by us and by ffprobe: the two must agree.
@Suite("Reading what ffmpeg writes, checked against ffprobe")
struct AgainstFFprobeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let codec: [String]
        let options: [String]
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "book.m4b", codec: ["-c:a", "aac", "-b:a", "64k"], options: []),
        Case(name: "song.m4a", codec: ["-c:a", "aac", "-b:a", "96k"], options: []),
        Case(name: "chapter-track-only.m4b", codec: ["-c:a", "aac", "-b:a", "64k"], options: ["-movflags", "+disable_chpl"]),
        Case(name: "id3v24.mp3", codec: ["-c:a", "libmp3lame", "-b:a", "64k"], options: []),
        Case(name: "id3v23.mp3", codec: ["-c:a", "libmp3lame", "-q:a", "5"], options: ["-id3v2_version", "3"]),
        Case(name: "mono-22k.mp3", codec: ["-c:a", "libmp3lame", "-b:a", "32k", "-ar", "22050", "-ac", "1"], options: []),
    ]

    @Test("chapter starts within 1 ms, the same titles, duration and tags", arguments: cases)
    func agrees(_ fixture: Case) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.make(fixture.name, in: directory, codec: fixture.codec,
                                     metadata: Fixtures.metadata(in: directory), options: fixture.options)
        let ours = try MediaFile.parse(path: file.path)
        let theirs = try Fixtures.probe(file)

        #expect(ours.format == (fixture.name.hasSuffix(".mp3") ? .mp3 : .mp4))
        #expect(abs(ours.duration - theirs.duration) < 0.001, "ours \(ours.duration), ffprobe \(theirs.duration)")
        #expect(ours.chapters.map(\.title) == theirs.chapters.map(\.title))
        #expect(ours.chapters.map(\.title) == Fixtures.chapters.map(\.title))
        for (mine, probe) in zip(ours.chapters, theirs.chapters) {
            #expect(abs(mine.start - probe.start) < 0.001, "\(mine.title): ours \(mine.start), ffprobe \(probe.start)")
            #expect(abs(mine.end - probe.end) < 0.001, "\(mine.title): ours ends \(mine.end), ffprobe \(probe.end)")
        }
        #expect(ours.tags.title == theirs.tags["title"])
        #expect(ours.tags.artist == theirs.tags["artist"])
        #expect(ours.tags.album == theirs.tags["album"])
        #expect(ours.tags.albumArtist == theirs.tags["album_artist"])
        #expect(ours.tags.year == "2021")
        #expect(ours.tags.description == "Read aloud; with care")
        #expect(ours.tags.track == 3)
        #expect(ours.tags.disc == 2)
        #expect(ours.artwork == nil)
    }

    @Test("Nero chapters alone (no chapter track) are read the same")
    func neroOnly() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.make("book.m4b", in: directory, codec: ["-c:a", "aac"], metadata: Fixtures.metadata(in: directory))
        // Unhook the chapter track: its `tref/chap` reference becomes an unknown reference type.
        var bytes = [UInt8](try Data(contentsOf: file))
        let chap = Array("chap".utf8)
        let at = try #require((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == chap })
        bytes.replaceSubrange(at..<at + 4, with: Array("xxxx".utf8))
        let ours = try MediaFile.parse(data: Data(bytes))
        let theirs = try Fixtures.probe(file)
        #expect(ours.chapters.map(\.title) == theirs.chapters.map(\.title))
        for (mine, probe) in zip(ours.chapters, theirs.chapters) {
            #expect(abs(mine.start - probe.start) < 0.001)
        }
        #expect(ours.chapters.count == 3)
    }

    @Test("an MP3 with no Xing header: the duration is counted from the frames", arguments: [["-b:a", "64k"], ["-q:a", "6"]])
    func countedFrames(_ rate: [String]) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.make("plain.mp3", in: directory, codec: ["-c:a", "libmp3lame"] + rate,
                                     metadata: Fixtures.metadata(in: directory), options: ["-write_xing", "0"])
        let ours = try MediaFile.parse(path: file.path)
        // Decoding every frame gives the exact length; ffprobe's header estimate can be off for VBR.
        let decoded = try Fixtures.run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets,sample_rate",
                                                   "-of", "csv=p=0", file.path])
        let fields = String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        let rateHz = try #require(Double(fields[0])), packets = try #require(Double(fields[1]))
        #expect(abs(ours.duration - packets * 1152 / rateHz) < 0.001, "ours \(ours.duration), frames \(packets)")
        #expect(ours.chapters.count == 3)
    }

    @Test("cover art comes out as the picture that went in", arguments: ["cover.m4a", "cover.mp3"])
    func artwork(_ name: String) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cover = try Fixtures.cover(in: directory)
        let codec = name.hasSuffix("mp3") ? ["-c:a", "libmp3lame"] : ["-c:a", "aac"]
        let file = try Fixtures.make(name, in: directory, codec: codec, metadata: Fixtures.metadata(in: directory), cover: cover)
        let ours = try MediaFile.parse(path: file.path)
        let artwork = try #require(ours.artwork)
        #expect(artwork.mimeType == "image/png")
        #expect(artwork.data == (try Data(contentsOf: cover)))
        #expect(ours.chapters.count == 3)
    }

    @Test("an M4B's `desc` wins over its comment")
    func descriptionAtom() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let metadata = try Fixtures.metadata(in: directory, extra: [("description", "The long description")])
        let file = try Fixtures.make("book.m4b", in: directory, codec: ["-c:a", "aac"], metadata: metadata)
        #expect(try MediaFile.parse(path: file.path).tags.description == "The long description")
    }

    @Test("a file read from memory and from disk gives the same value")
    func memoryAndDisk() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.make("book.m4b", in: directory, codec: ["-c:a", "aac"], metadata: Fixtures.metadata(in: directory))
        #expect(try MediaFile.parse(path: file.path) == MediaFile.parse(data: Data(contentsOf: file)))
    }
}

// MARK: - ID3 forms ffmpeg does not write

@Suite("ID3 tags of every version")
struct ID3Tests {
    func parse(_ bytes: [UInt8]) throws -> ParsedMedia {
        try MediaFile.parse(data: Data(bytes))
    }

    @Test("ID3v2.2: three-letter frames and a PIC picture")
    func version22() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]
        let body = Bytes.textFrame("TT2", "Old Song", version: 2) + Bytes.textFrame("TP1", "Old Singer", version: 2)
            + Bytes.textFrame("TAL", "Old Album", version: 2) + Bytes.textFrame("TRK", "7/9", version: 2)
            + Bytes.frame("PIC", [0] + Array("PNG".utf8) + [3] + [0] + png, version: 2)
        let media = try parse(Bytes.id3(version: 2, body: body) + Bytes.mpegFrames(20))
        #expect(media.tags == ParsedTags(title: "Old Song", artist: "Old Singer", album: "Old Album", track: 7))
        #expect(media.artwork == ParsedArtwork(mimeType: "image/png", data: Data(png)))
        #expect(abs(media.duration - 20 * 1152 / 44_100) < 1e-9)
    }

    @Test("ID3v2.3 with the whole tag unsynchronised and an extended header")
    func version23Unsynchronised() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0x00, 0xFF]
        let frames = Bytes.textFrame("TIT2", "Ünsync", version: 3, encoding: 1)
            + Bytes.frame("APIC", [0] + Array("image/jpeg".utf8) + [0, 3] + [0] + jpeg, version: 3)
        let extended = Bytes.u32(6) + [0, 0] + Bytes.u32(0)
        let tag = Bytes.id3(version: 3, flags: 0xC0, body: Bytes.unsynchronised(extended + frames))
        let media = try parse(tag + Bytes.mpegFrames(3))
        #expect(media.tags.title == "Ünsync")
        #expect(media.artwork?.data == Data(jpeg))
        #expect(media.artwork?.mimeType == "image/jpeg")
    }

    @Test("ID3v2.4: per-frame unsynchronisation with a data length indicator, and an extended header")
    func version24PerFrame() throws {
        let text: [UInt8] = [3] + Array("ÿ Title".utf8)  // UTF-8 "ÿ" is C3 BF; add a real 0xFF through the picture
        let picture: [UInt8] = [0] + Array("image/png".utf8) + [0, 3, 0] + [0x89, 0x50, 0xFF, 0xE0, 0xFF]
        let unsyncedPicture = Bytes.unsynchronised(picture)
        let body = [0, 0, 0, 6, 1, 0]  // extended header: syncsafe size 6 (including itself), 1 flag byte, no flags
            + Bytes.frame("TIT2", text, version: 4)
            + Bytes.frame("APIC", Bytes.syncsafe(picture.count) + unsyncedPicture, version: 4, flags: [0, 0x03])
        let media = try parse(Bytes.id3(version: 4, flags: 0x40, body: body) + Bytes.mpegFrames(3))
        #expect(media.tags.title == "ÿ Title")
        #expect(media.artwork?.data == Data([0x89, 0x50, 0xFF, 0xE0, 0xFF]))
    }

    @Test("ID3v2.4 sizes written as plain integers (old iTunes) are still read")
    func version24PlainSizes() throws {
        let long = String(repeating: "a", count: 200)  // 201 bytes: 0xC9 is not a valid syncsafe byte
        let frame = Array("TIT2".utf8) + Bytes.u32(201) + [0, 0] + [3] + Array(long.utf8)
        let body = frame + Bytes.textFrame("TPE1", "After", version: 4)
        let media = try parse(Bytes.id3(version: 4, body: body) + Bytes.mpegFrames(2))
        #expect(media.tags.title == long)
        #expect(media.tags.artist == "After")
    }

    @Test("ID3v1.1 fills what ID3v2 lacks, with its track number")
    func version1() throws {
        func field(_ text: String, _ length: Int) -> [UInt8] {
            Array(text.utf8) + [UInt8](repeating: 0, count: length - text.utf8.count)
        }
        let v1 = Array("TAG".utf8) + field("V1 Title", 30) + field("V1 Artist", 30) + field("V1 Album", 30) + field("1999", 4)
            + field("a comment", 28) + [0, 5] + [12]
        let tag = Bytes.id3(version: 3, body: Bytes.textFrame("TIT2", "V2 Title", version: 3))
        let media = try parse(tag + Bytes.mpegFrames(10) + v1)
        #expect(media.tags == ParsedTags(title: "V2 Title", artist: "V1 Artist", album: "V1 Album", year: "1999", description: "a comment", track: 5))
        #expect(abs(media.duration - 10 * 1152 / 44_100) < 1e-9, "the ID3v1 tag is not counted as audio")
    }

    @Test("CHAP frames follow the top-level CTOC's order and keep their own ends")
    func chaptersInTableOrder() throws {
        func chap(_ id: String, _ start: UInt32, _ end: UInt32, _ title: String) -> [UInt8] {
            Bytes.frame("CHAP", Array(id.utf8) + [0] + Bytes.u32(start) + Bytes.u32(end) + Bytes.u32(.max) + Bytes.u32(.max)
                + Bytes.textFrame("TIT2", title, version: 4), version: 4)
        }
        let toc = Bytes.frame("CTOC", Array("toc".utf8) + [0, 0x03, 2] + Array("b".utf8) + [0] + Array("a".utf8) + [0], version: 4)
        // Listed in the tag as a, b; the table says b comes first (and it does start first).
        let body = chap("a", 1_000, 2_000, "Second") + chap("b", 0, 900, "First") + toc
        let media = try parse(Bytes.id3(version: 4, body: body) + Bytes.mpegFrames(100))
        #expect(media.chapters == [ParsedChapter(title: "First", start: 0, end: 0.9), ParsedChapter(title: "Second", start: 1, end: 2)])
    }

    @Test("a VBRI header (Fraunhofer) gives the frame count")
    func vbri() throws {
        var first = Bytes.mpegFrames(1)
        let vbri = Array("VBRI".utf8) + Bytes.u16(1) + Bytes.u16(0) + Bytes.u16(75) + Bytes.u32(417 * 1000) + Bytes.u32(1000)
        first.replaceSubrange(36..<36 + vbri.count, with: vbri)
        let media = try parse(first + Bytes.mpegFrames(1000))
        #expect(abs(media.duration - 1000 * 1152 / 44_100) < 1e-9)
    }

    @Test("junk between the tag and the audio, and a damaged frame in the middle, are stepped over")
    func resynchronises() throws {
        let junk = [UInt8](repeating: 0x55, count: 300) + [0xFF, 0x00, 0x12]
        let damaged = Bytes.mpegFrames(5) + [0xFF, 0xFF, 0x01, 0x02, 0x03] + Bytes.mpegFrames(5)
        let media = try parse(Bytes.id3(version: 3, body: Bytes.textFrame("TIT2", "x", version: 3)) + junk + damaged)
        #expect(abs(media.duration - 10 * 1152 / 44_100) < 1e-9)
    }
}

// MARK: - Hostile input

@Suite("Damaged and hostile files give a clear error, never a crash")
struct HostileInputTests {
    @Test("not audio at all")
    func notAudio() {
        #expect(throws: MediaFormatsError.unsupportedFormat) { try MediaFile.parse(data: Data("hello, this is text".utf8)) }
        #expect(throws: MediaFormatsError.unsupportedFormat) { try MediaFile.parse(data: Data()) }
        #expect(throws: MediaFormatsError.unsupportedFormat) { try MediaFile.parse(data: Data("RIFF....WAVEfmt ".utf8)) }
    }

    @Test("an M4B cut short before its moov box")
    func truncatedMovie() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // faststart off: ffmpeg writes moov after mdat, so half the file has no moov.
        let file = try Fixtures.make("book.m4b", in: directory, codec: ["-c:a", "aac"], metadata: Fixtures.metadata(in: directory))
        let bytes = try Data(contentsOf: file)
        for cut in [bytes.count / 2, bytes.count - 40, bytes.count - 1] {
            #expect(throws: MediaFormatsError.self) { try MediaFile.parse(data: bytes.prefix(cut)) }
        }
    }

    @Test("box sizes that lie: larger than the file, smaller than a header, larger than the parent")
    func lyingSizes() {
        let ftyp = Bytes.box("ftyp", Array("M4A ".utf8) + Bytes.u32(0))
        // moov claims 4 GiB.
        let huge = ftyp + Bytes.u32(0xFFFF_FFF0) + Array("moov".utf8) + [UInt8](repeating: 0, count: 16)
        #expect(throws: MediaFormatsError.tooLarge("the 'moov' box holds 4294967272 bytes (at most \(MP4Reader.maxMovieBytes))")) {
            try MediaFile.parse(data: Data(huge))
        }
        // A box of 3 bytes would never advance.
        let tiny = ftyp + Bytes.u32(3) + Array("free".utf8)
        #expect(throws: MediaFormatsError.self) { try MediaFile.parse(data: Data(tiny)) }
        // A child larger than its parent.
        let child = Bytes.u32(1_000) + Array("trak".utf8) + [UInt8](repeating: 0, count: 8)
        let liar = ftyp + Bytes.box("moov", child)
        #expect(throws: MediaFormatsError.malformed("box 'trak' is larger than the box that holds it")) { try MediaFile.parse(data: Data(liar)) }
        // A 64-bit size past any file.
        let large = ftyp + Bytes.u32(1) + Array("mdat".utf8) + Bytes.u32(0x7FFF_FFFF) + Bytes.u32(0xFFFF_FFFF)
        #expect(throws: MediaFormatsError.self) { try MediaFile.parse(data: Data(large)) }
    }

    @Test("a summary frame that claims 2³² frames in 48 KB (or 2): the length comes from the size and the bitrate")
    func lyingFrameCount() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // LAME writes an Info header with the true frame count; it is then made to lie.
        let file = try Fixtures.make("short.mp3", in: directory, seconds: 3, codec: ["-c:a", "libmp3lame", "-b:a", "128k"],
                                     metadata: Fixtures.metadata(in: directory, chapters: []))
        var bytes = [UInt8](try Data(contentsOf: file))
        let truth = try MediaFile.parse(data: Data(bytes)).duration
        #expect(abs(truth - 3) < 0.1)
        let names: [[UInt8]] = [Array("Info".utf8), Array("Xing".utf8)]
        let found: Int? = (0..<(bytes.count - 12)).first { (offset: Int) -> Bool in names.contains(Array(bytes[offset..<offset + 4])) }
        let info = try #require(found)
        #expect(bytes[info + 7] & 1 == 1, "the summary has a frame count")
        for claim: UInt32 in [0xFFFF_FFFF, 2] {
            bytes.replaceSubrange(info + 8..<info + 12, with: Bytes.u32(claim))
            let media = try MediaFile.parse(data: Data(bytes))
            #expect(abs(media.duration - truth) < 0.1, "claimed \(claim) frames: \(media.duration) s")
        }
    }

    @Test("an MP4 with no audio track is refused, not made a book of length 0")
    func noAudioTrack() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("picture.m4a")
        _ = try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x223344:s=64x64:d=1", "-c:v", "mpeg4",
                                        "-f", "mp4", file.path])
        #expect(throws: MediaFormatsError.noAudio) { try MediaFile.parse(path: file.path) }
    }

    @Test("a chapter track that claims millions of chapters is refused, not allocated")
    func chapterBomb() {
        let stts = Bytes.box("stts", [0, 0, 0, 0] + Bytes.u32(1) + Bytes.u32(0xFFFF_FFFF) + Bytes.u32(1))
        let stbl = Bytes.box("stbl", stts)
        let mdia = Bytes.box("mdia", Bytes.box("mdhd", [UInt8](repeating: 0, count: 12) + Bytes.u32(1000) + Bytes.u32(10) + [0, 0, 0, 0])
            + Bytes.box("minf", stbl))
        let chapters = Bytes.box("trak", Bytes.box("tkhd", [UInt8](repeating: 0, count: 12) + Bytes.u32(2) + [UInt8](repeating: 0, count: 4)) + mdia)
        let audio = Bytes.box("trak", Bytes.box("tkhd", [UInt8](repeating: 0, count: 12) + Bytes.u32(1) + [UInt8](repeating: 0, count: 4))
            + Bytes.box("tref", Bytes.box("chap", Bytes.u32(2))))
        let file = Bytes.box("ftyp", Array("M4B ".utf8) + Bytes.u32(0)) + Bytes.box("moov", audio + chapters)
        #expect(throws: MediaFormatsError.tooLarge("more than \(MP4Reader.maxChapters) chapters")) { try MediaFile.parse(data: Data(file)) }
    }

    @Test("ID3 sizes that lie")
    func lyingTags() throws {
        // A tag claiming 200 MB.
        let big = Array("ID3".utf8) + [4, 0, 0] + [0x7F, 0x7F, 0x7F, 0x7F]
        #expect(throws: MediaFormatsError.self) { try MediaFile.parse(data: Data(big + Bytes.mpegFrames(2))) }
        // A size with its top bits set is not syncsafe.
        let bad = Array("ID3".utf8) + [3, 0, 0] + [0x80, 0, 0, 10] + [UInt8](repeating: 0, count: 10)
        #expect(throws: MediaFormatsError.malformed("the ID3 tag's size is not a valid number")) { try MediaFile.parse(data: Data(bad)) }
        // A frame that runs past its tag ends the frame list; the file still reads.
        let runaway = Bytes.id3(version: 3, body: Array("TIT2".utf8) + Bytes.u32(5_000) + [0, 0, 0] + Array("x".utf8))
        let runawayMedia = try MediaFile.parse(data: Data(runaway + Bytes.mpegFrames(2)))
        #expect(runawayMedia.tags.title == nil)
        #expect(abs(runawayMedia.duration - 2 * 1152 / 44_100) < 1e-9)
        // A tag and no audio after it.
        #expect(throws: MediaFormatsError.malformed("no MPEG audio frame was found")) {
            try MediaFile.parse(data: Data(Bytes.id3(version: 3, body: Bytes.textFrame("TIT2", "x", version: 3))))
        }
    }

    @Test("a directory or a missing file is unreadable, with its path in the message")
    func unreadable() {
        #expect(throws: MediaFormatsError.self) { try MediaFile.parse(path: "/no/such/file.mp3") }
        #expect(throws: MediaFormatsError.self) { try MediaFile.parse(path: "/tmp") }
    }
}
