import Foundation
@testable import MediaFormats
import Testing

/// An MP3 on another server is read from its head and its size alone (issue 46's joined streams).
@Suite("An MP3 read from its first bytes: its length and where a second of it is, as the whole file says")
struct MP3HeadTests {
    @Test("from the head alone: the length the whole file gives (Info header, or bytes and bitrate without one), and a byte for each second", arguments: [
        ["-b:a", "64k", "-ar", "22050", "-ac", "1"],
        ["-b:a", "128k", "-write_xing", "0"],
        ["-q:a", "6"],
    ])
    func head(_ codec: [String]) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.make("section.mp3", in: directory, seconds: 20, codec: ["-c:a", "libmp3lame"] + codec,
                                     metadata: Fixtures.metadata(in: directory, chapters: []), cover: Fixtures.cover(in: directory))
        let bytes = [UInt8](try Data(contentsOf: file))
        let whole = try MediaFile.parse(path: file.path)
        let head = try MP3Head.read(Array(bytes.prefix(MP3Head.headBytes)), size: Int64(bytes.count))
        let variable = codec.contains("-q:a")
        // A variable-rate file with an Info header is exact; a constant-rate one without is its bytes at its rate.
        #expect(abs(head.duration - whole.duration) < (variable ? 0.03 : 0.1), "\(head.duration) against \(whole.duration)")
        #expect(head.counted == !codec.contains("-write_xing"))
        // A constant rate's second is half a frame after its byte; a variable rate is read from its start.
        #expect(head.constantRate == !variable)
        let (offset, at) = head.byte(before: 10)
        if variable {
            #expect(offset == head.audioStart && at == 0)
        } else {
            #expect(at <= 10 && at > 9.9 && offset > head.audioStart && offset < Int64(bytes.count))
            let frame = Double(head.samplesPerFrame) / Double(head.sampleRate)
            #expect(abs(Double(offset - head.audioStart) / head.bytesPerSecond - (at - frame / 2)) < 0.002)
        }
        #expect(head.byte(before: 0) == (head.audioStart, 0))
    }

    @Test("tags longer than the head: the audio is found in bytes read from where they end; a head with no frame says so")
    func longTags() throws {
        let tag = Bytes.id3(version: 4, body: Bytes.textFrame("TIT2", String(repeating: "a", count: 300_000), version: 4, encoding: 3))
        let frames = Bytes.mpegFrames(400)
        let file = tag + frames
        let head = Array(file.prefix(MP3Head.headBytes))
        let end = try MP3Head.tagsEnd(head)
        #expect(end == Int64(tag.count) && end > Int64(head.count))
        let read = try MP3Head.read(Array(file[Int(end)...].prefix(MP3Head.headBytes)), at: end, size: Int64(file.count))
        #expect(read.audioStart == end && read.duration > 0)
        #expect(throws: MediaFormatsError.self) { try MP3Head.read(head, size: Int64(file.count)) }
        #expect(throws: MediaFormatsError.self) { try MP3Head.read([UInt8](repeating: 0x20, count: 4096), size: 1 << 20) }
    }
}
