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

    @Test("a hand-made M4A: frames in two chunks with other bytes between and 64-bit offsets come out in order, the bytes between stepped over; QuickTime and ISO descriptions of version 1 read alike; frames out of order, empty or too large for ADTS are refused")
    func handMade() throws {
        let sizes = [10, 20, 30, 40, 50]
        let plain = HandMadeM4A(sizes: sizes)
        let file = plain.file
        let audio = try MP4Audio.read(movie: plain.movie, size: Int64(file.count))
        #expect(audio.frameCount == 5 && audio.priming == 0 && abs(audio.duration - 5 * 1_024 / 44_100) < 1e-9)
        #expect(audio.adts == ADTSHeader(profile: 1, frequencyIndex: 4, channels: 2))
        #expect(audio.offset(of: 0) == plain.chunkOffsets[0] && audio.offset(of: 2) == plain.chunkOffsets[0] + 30 && audio.offset(of: 3) == plain.chunkOffsets[1])
        // 0.05 s is in frame 2; decoding starts at frame 1 (its sound overlaps frame 2's).
        #expect(audio.frame(before: 0.05) == (1, 1_024.0 / 44_100))
        // Every frame with its header, in order, in whatever pieces the bytes come; the bytes between the chunks are not in them.
        let expected = sizes.enumerated().flatMap { index, size in audio.adts.bytes(forFrameOf: size) + [UInt8](repeating: UInt8(index + 1), count: size) }
        for piece in [1, 7, 64, 10_000] {
            var framer = ADTSFramer(audio, from: 0)
            var written: [UInt8] = []
            var at = Int(framer.startOffset)
            while at < file.count, !framer.finished {
                written += framer.take(file[at..<min(file.count, at + piece)])
                at += piece
            }
            #expect(written == expected && framer.finished, "in pieces of \(piece)")
        }
        var fromFourth = ADTSFramer(audio, from: 3)
        #expect(fromFourth.startOffset == plain.chunkOffsets[1])
        #expect(fromFourth.take(file[Int(plain.chunkOffsets[1])...]) == Array(expected.suffix(2 * 7 + 90)))

        // Version 1 descriptions: QuickTime's (16 more bytes) and ISO's (none more) both lead to the esds.
        for (stsdVersion, extra) in [(UInt8(0), 16), (UInt8(1), 0)] {
            let described = HandMadeM4A(sizes: sizes, stsdVersion: stsdVersion, entryVersion: 1, entryExtra: extra)
            #expect(try MP4Audio.read(movie: described.movie, size: Int64(described.file.count)).adts == audio.adts, "stsd version \(stsdVersion)")
        }
        // Refused: chunks out of file order, an empty frame, a frame larger than ADTS holds.
        let backwards = HandMadeM4A(sizes: sizes, swapChunks: true)
        #expect { try MP4Audio.read(movie: backwards.movie, size: Int64(backwards.file.count)) } throws: { error in
            (error as? MediaFormatsError)?.description.contains("come before") == true
        }
        for wrong in [[10, 0, 30, 40, 50], [10, 20, 9_000, 40, 50]] {
            let made = HandMadeM4A(sizes: wrong)
            #expect { try MP4Audio.read(movie: made.movie, size: Int64(made.file.count)) } throws: { error in
                (error as? MediaFormatsError)?.description.contains("an AAC frame of") == true
            }
        }
    }

    @Test("a file's length is its frames', not its headers': headers that say 10 hours for 2 s of sound, chapters past the end, a file cut to 40 % (issue 50)")
    func lyingLengths() throws {
        let directory = try Fixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 2 s whose mvhd, tkhd and mdhd say 10 hours (each in its own timescale).
        let short = directory.appendingPathComponent("short.m4a")
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", "-movflags", "+faststart", short.path])
        var bytes = [UInt8](try Data(contentsOf: short))
        func patch(_ type: String, durationAt field: Int) throws {
            let index = try #require((0..<bytes.count - 8).first { Array(bytes[$0..<$0 + 4]) == Array(type.utf8) })
            #expect(bytes[index + 4] == 0, "\(type) is version 0")
            let timescale = type == "tkhd" ? 1_000 : Int(Bytes.u32Value(bytes, index + 16))
            bytes.replaceSubrange(index + field..<index + field + 4, with: Bytes.u32(UInt32(36_000 * timescale)))
        }
        try patch("mvhd", durationAt: 20)
        try patch("tkhd", durationAt: 24)
        try patch("mdhd", durationAt: 20)
        let lying = directory.appendingPathComponent("lying.m4a")
        try Data(bytes).write(to: lying)
        #expect(abs(try MediaFile.parse(path: short.path).duration - 2) < 0.05)
        #expect(abs(try MediaFile.parse(path: lying.path).duration - 2) < 0.05, "read as its headers say")

        // Chapters at 0 s, 1 s and an hour in, for 2 s of sound: the last is dropped, the second ends at the end.
        let metadata = try Fixtures.metadata(in: directory, chapters: [.init(title: "One", start: 0, end: 1_000), .init(title: "Two", start: 1_000, end: 3_600_000),
                                                                      .init(title: "Far", start: 3_600_000, end: 18_000_000)])
        let book = try Fixtures.make("far.m4b", in: directory, seconds: 2, codec: ["-c:a", "aac"], metadata: metadata)
        let chapters = try MediaFile.parse(path: book.path).chapters
        #expect(chapters.map(\.title) == ["One", "Two"] && abs((chapters.last?.end ?? 0) - 2) < 0.05, "\(chapters)")

        // 60 s cut to 40 %: what it holds, about 24 s.
        let long = directory.appendingPathComponent("long.m4a")
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=60", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart", long.path])
        let whole = try Data(contentsOf: long)
        let cut = directory.appendingPathComponent("cut.m4a")
        try whole.prefix(whole.count * 4 / 10).write(to: cut)
        #expect(abs(try MediaFile.parse(path: long.path).duration - 60) < 0.1)
        let held = try MediaFile.parse(path: cut.path).duration
        #expect(held > 20 && held < 26, "a file cut to 40 % reads as \(held) s")

        // A box that claims to reach 2^63 bytes: refused, not a crash of the server reading it.
        let huge = Bytes.box("ftyp", Array("M4A ".utf8) + Bytes.u32(0)) + Bytes.u32(1) + Array("free".utf8)
            + Bytes.u32(0x7FFF_FFFF) + Bytes.u32(0xFFFF_FFEF) + [UInt8](repeating: 0, count: 16)
        #expect(throws: MediaFormatsError.self) { try MP4Reader.parse(MemoryByteSource(huge)) }
    }

    /// A file decoded by ffmpeg to mono samples at 44.1 kHz.
    static func samples(_ file: URL, format: String? = nil) throws -> [Float] {
        let input = (format.map { ["-f", $0] } ?? []) + ["-i", file.path]
        let data = try Fixtures.run("ffmpeg", ["-v", "error"] + input + ["-ac", "1", "-ar", "44100", "-f", "f32le", "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// An M4A made by hand: `ftyp`, then `mdat` with the frames in two chunks (three frames, then two)
/// and 33 other bytes between them, then `moov` with 64-bit chunk offsets. Frame `n` is filled with
/// the byte `n + 1`.
struct HandMadeM4A {
    let movie: [UInt8]
    let file: [UInt8]
    let chunkOffsets: [Int64]

    init(sizes: [Int], stsdVersion: UInt8 = 0, entryVersion: UInt16 = 0, entryExtra: Int = 0, swapChunks: Bool = false) {
        let frames = sizes.enumerated().map { [UInt8](repeating: UInt8($0.offset + 1), count: $0.element) }
        let ftyp = Bytes.box("ftyp", Array("M4A ".utf8) + Bytes.u32(0) + Array("M4A ".utf8))
        let first = Array(frames[0..<3].joined()), between = [UInt8](repeating: 0xEE, count: 33), second = Array(frames[3...].joined())
        let mdat = Bytes.box("mdat", first + between + second)
        let start = Int64(ftyp.count + 8)
        var offsets = [start, start + Int64(first.count + between.count)]
        chunkOffsets = offsets
        if swapChunks { offsets.reverse() }
        func full(_ type: String, _ payload: [UInt8], version: UInt8 = 0) -> [UInt8] { Bytes.box(type, [version, 0, 0, 0] + payload) }
        // The decoder's configuration: AAC-LC, 44.1 kHz, stereo.
        let specific: [UInt8] = [0x05, 2, 0x12, 0x10]
        let decoder: [UInt8] = [0x04, UInt8(13 + specific.count), 0x40, 0x15, 0, 0, 0] + Bytes.u32(0) + Bytes.u32(0) + specific
        let elementary: [UInt8] = [0x03, UInt8(3 + decoder.count), 0, 1, 0] + decoder
        let esds = full("esds", elementary)
        let entry = Bytes.box("mp4a", [UInt8](repeating: 0, count: 6) + Bytes.u16(1) + Bytes.u16(entryVersion) + [UInt8](repeating: 0, count: 6)
                              + Bytes.u16(2) + Bytes.u16(16) + Bytes.u16(0) + Bytes.u16(0) + Bytes.u32(44_100 << 16)
                              + [UInt8](repeating: 0, count: entryExtra) + esds)
        let stsd = full("stsd", Bytes.u32(1) + entry, version: stsdVersion)
        let stts = full("stts", Bytes.u32(1) + Bytes.u32(UInt32(sizes.count)) + Bytes.u32(1_024))
        let stsz = full("stsz", Bytes.u32(0) + Bytes.u32(UInt32(sizes.count)) + sizes.flatMap { Bytes.u32(UInt32($0)) })
        let stsc = full("stsc", Bytes.u32(2) + Bytes.u32(1) + Bytes.u32(3) + Bytes.u32(1) + Bytes.u32(2) + Bytes.u32(2) + Bytes.u32(1))
        let co64 = full("co64", Bytes.u32(2) + offsets.flatMap { Bytes.u32(UInt32($0 >> 32)) + Bytes.u32(UInt32($0 & 0xFFFF_FFFF)) })
        let stbl = Bytes.box("stbl", stsd + stts + stsz + stsc + co64)
        let mdhd = full("mdhd", Bytes.u32(0) + Bytes.u32(0) + Bytes.u32(44_100) + Bytes.u32(UInt32(sizes.count * 1_024)))
        let hdlr = full("hdlr", Bytes.u32(0) + Array("soun".utf8) + [UInt8](repeating: 0, count: 13))
        let trak = Bytes.box("trak", full("tkhd", Bytes.u32(0) + Bytes.u32(0) + Bytes.u32(1)) + Bytes.box("mdia", mdhd + hdlr + Bytes.box("minf", stbl)))
        let mvhd = full("mvhd", Bytes.u32(0) + Bytes.u32(0) + Bytes.u32(1_000) + Bytes.u32(116))
        let moov = Bytes.box("moov", mvhd + trak)
        movie = Array(moov.dropFirst(8))
        file = ftyp + mdat + moov
    }
}
