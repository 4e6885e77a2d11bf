import Foundation
@testable import MediaFormats
import Testing

/// An M4A on another server is read from its `moov` alone and sent on as ADTS frames from any of
/// its seconds (issue 46's joined streams: an episode's M4A on its feed).
@Suite("An M4A read from its movie box: its length, where a second of it is, and its frames as ADTS from there")
struct MP4AudioTests {
    @Test("what ffmpeg writes, its movie first or last: found from a few reads of its boxes' headers, its length ffprobe's, and ADTS from a second inside it decodes to the same sound in the same place", arguments: [false, true])
    func readAndFrame(fastStart: Bool) throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A tone that steps up 100 Hz each second, so a second's sound is told from its neighbours'.
        let file = directory.appendingPathComponent("episode.m4a")
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(300+100*floor(t))*t):s=44100:d=12",
                                    "-c:a", "aac", "-b:a", "64k"] + (fastStart ? ["-movflags", "+faststart"] : []) + [file.path])
        let bytes = [UInt8](try Data(contentsOf: file))
        let size = Int64(bytes.count)

        // Read as a remote file is: the first 16 KB, then from wherever the boxes point.
        var reads = 0
        var finding = try MP4Audio.findMovie(in: Array(bytes.prefix(16_384)), at: 0, size: size)
        while case .readFrom(let offset) = finding {
            reads += 1
            try #require(reads < 5)
            finding = try MP4Audio.findMovie(in: Array(bytes[Int(offset)...].prefix(16_384)), at: offset, size: size)
        }
        guard case .movie(let range) = finding else { Issue.record("no movie"); return }
        #expect(reads == (fastStart ? 0 : 1), "the movie is found after \(reads) more reads")
        let audio = try MP4Audio.read(movie: Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), size: size)
        let probed = try Fixtures.probe(file).duration
        #expect(abs(audio.duration - probed) < 0.03 && abs(audio.duration - 12) < 0.03, "\(audio.duration) against ffprobe's \(probed)")
        #expect(audio.adts == ADTSHeader(profile: 1, frequencyIndex: 4, channels: 1) && audio.timescale == 44_100)
        // ffmpeg's AAC primes 1,024 samples, which the edit list hides: the first frame starts before 0.
        #expect(audio.priming == 1_024 && audio.frame(before: 0) == (0, -1_024.0 / 44_100))
        let (index, at) = audio.frame(before: 6)
        // The frame before the one that holds 6 s (its sound overlaps the one before's).
        #expect(at <= 6 - 1_024.0 / 44_100 && at > 6 - 2_048.0 / 44_100 && index == Int((6 * 44_100 + 1_024) / 1_024) - 1, "\(index) at \(at)")
        #expect(audio.frame(before: 60).index == audio.frameCount - 2)

        // The frames from 6 s on as ADTS, fed in uneven pieces as a network gives them.
        var framer = ADTSFramer(audio, from: index)
        #expect(framer.startOffset == audio.offset(of: index) && framer.startOffset > (fastStart ? range.upperBound : 0))
        var adts: [UInt8] = []
        var position = Int(framer.startOffset)
        var piece = 1
        while position < bytes.count, !framer.finished {
            let end = min(bytes.count, position + piece)
            adts += framer.take(bytes[position..<end])
            position = end
            piece = piece * 3 % 4_099 + 1
        }
        #expect(framer.finished && framer.frame == audio.frameCount)
        let aac = directory.appendingPathComponent("rest.aac")
        try Data(adts).write(to: aac)
        let whole = try Self.samples(file), rest = try Self.samples(aac, format: "aac")
        // Decoded from there (the file's frames hold the priming, which ADTS does not hide), the
        // sound from 6.5 s is the whole file's, sample for sample within the codec's noise.
        let rate = 44_100.0
        let drop = Int(((6.5 - at) * rate).rounded())
        let window = Int(6.5 * rate)..<Int(8.5 * rate)
        let compared = zip(whole[window], rest[drop...])
        let apart = sqrt(compared.map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Float(window.count))
        let level = sqrt(whole[window].map { $0 * $0 }.reduce(0, +) / Float(window.count))
        #expect(apart < 0.05 * level, "the ADTS frames from 6 s are \(20 * log10(apart / level)) dB from the file")
        #expect(abs(Double(rest.count) - (12 - at) * rate) < 2_048, "\(Double(rest.count) / rate) s decoded from \(at) s")
    }

    @Test("a movie whose frames lie past the file's end, a file cut short, one with no movie and sound that is not AAC are refused, saying why")
    func refusals() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("short.m4a")
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-c:a", "aac", "-movflags", "+faststart", file.path])
        let bytes = [UInt8](try Data(contentsOf: file))
        guard case .movie(let range) = try MP4Audio.findMovie(in: bytes, at: 0, size: Int64(bytes.count)) else { Issue.record("no movie"); return }
        let movie = Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)])
        #expect(try MP4Audio.read(movie: movie, size: Int64(bytes.count)).frameCount > 100)
        // The same movie in a file cut to 40 %: its frames lie past the end.
        #expect {
            try MP4Audio.read(movie: movie, size: Int64(bytes.count * 4 / 10))
        } throws: { error in
            (error as? MediaFormatsError)?.description.contains("past the file's end") == true
        }
        // A box whose size runs past the file; a file of one `mdat` and nothing else.
        var lying = bytes
        lying.replaceSubrange(0..<4, with: [0x7F, 0, 0, 0])
        #expect(throws: MediaFormatsError.self) { try MP4Audio.findMovie(in: lying, at: 0, size: Int64(lying.count)) }
        let onlyData = Bytes.box("ftyp", Array("M4A ".utf8) + [0, 0, 0, 0]) + Bytes.box("mdat", [UInt8](repeating: 1, count: 500))
        #expect {
            try MP4Audio.findMovie(in: onlyData, at: 0, size: Int64(onlyData.count))
        } throws: { error in
            (error as? MediaFormatsError)?.description.contains("no 'moov'") == true
        }
        // Headers past the bytes given: read on from the next box.
        #expect(try MP4Audio.findMovie(in: Array(onlyData.prefix(20)), at: 0, size: 10_000) == .readFrom(16))
        // ALAC in an M4A: not AAC.
        let lossless = directory.appendingPathComponent("lossless.m4a")
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "alac", "-movflags", "+faststart", lossless.path])
        let alac = [UInt8](try Data(contentsOf: lossless))
        guard case .movie(let alacRange) = try MP4Audio.findMovie(in: alac, at: 0, size: Int64(alac.count)) else { Issue.record("no movie"); return }
        #expect {
            try MP4Audio.read(movie: Array(alac[Int(alacRange.lowerBound)..<Int(alacRange.upperBound)]), size: Int64(alac.count))
        } throws: { error in
            (error as? MediaFormatsError)?.description.contains("not AAC") == true
        }
    }

    @Test("the AudioSpecificConfig names the ADTS header: AAC-LC as it is, HE-AAC by its AAC core; each frame's header holds its length")
    func configs() throws {
        // AAC-LC, 44.1 kHz, stereo: 00010 0100 0010 000.
        let plain = try ADTSHeader.fromConfig([0x12, 0x10])
        #expect(plain == ADTSHeader(profile: 1, frequencyIndex: 4, channels: 2) && plain.sampleRate == 44_100)
        // HE-AAC: object type 5, the core at 22.05 kHz, stereo, SBR's 44.1 kHz, then the core's type (LC).
        #expect(try ADTSHeader.fromConfig([0x2B, 0x92, 0x08]) == ADTSHeader(profile: 1, frequencyIndex: 7, channels: 2))
        // Object type 42 (USAC) has no ADTS form; a config cut short is refused.
        #expect(throws: MediaFormatsError.self) { try ADTSHeader.fromConfig([0xF8, 0x54, 0x40]) }
        #expect(throws: MediaFormatsError.self) { try ADTSHeader.fromConfig([0x12]) }
        // A 100-byte frame: 107 bytes with the header.
        #expect(plain.bytes(forFrameOf: 100) == [0xFF, 0xF1, 0x50, 0x80, 0x0D, 0x7F, 0xFC])
    }

    /// A file decoded by ffmpeg to mono samples at 44.1 kHz.
    static func samples(_ file: URL, format: String? = nil) throws -> [Float] {
        let input = (format.map { ["-f", $0] } ?? []) + ["-i", file.path]
        let data = try Fixtures.run("ffmpeg", ["-v", "error"] + input + ["-ac", "1", "-ar", "44100", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
