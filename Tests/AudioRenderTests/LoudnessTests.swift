import AudioRender
import Foundation
import Testing

@Suite("Loudness and the bell")
struct LoudnessTests {
    @Test("a 1 kHz sine at −20 dBFS measures −23 LUFS (BS.1770's calibration)", arguments: [22050, 44100, 48000])
    func calibration(rate: Int) throws {
        let tone = Signals.sine(997, seconds: 5, decibels: -20, rate: rate)
        #expect(abs(try Loudness.integrated(tone) - (-23.01)) < 0.1)
    }

    @Test("our meter agrees with ffmpeg's ebur128 within 0.3 LU")
    func agreesWithFFmpeg() async throws {
        let signal = Signals.noise(seconds: 4, decibels: -24)
            .appending(.silence(seconds: 2, sampleRate: 22050))
            .appending(Signals.sine(180, seconds: 3, decibels: -14))
        let ours = try Loudness.integrated(signal)
        let theirs = try await Signals.ffmpegLoudness(signal)
        #expect(abs(ours - theirs) < 0.3, "ours \(ours), ffmpeg \(theirs)")
    }

    @Test("silence gates out: nothing to measure")
    func silence() {
        #expect(throws: AudioRenderError.tooQuietToMeasure) { try Loudness.integrated(.silence(seconds: 3, sampleRate: 22050)) }
        #expect(throws: AudioRenderError.tooQuietToMeasure) { try Loudness.integrated(Signals.sine(440, seconds: 0.2)) }
    }

    @Test("normalizing reaches −16 LUFS without passing −1 dBFS")
    func normalize() throws {
        let quiet = Signals.noise(seconds: 3, decibels: -35)
        let loud = try Loudness.normalized(quiet, to: -16)
        #expect(abs(try Loudness.integrated(loud) - (-16)) < 0.2)
        #expect(decibels(loud.peak) <= -1 + 1e-4)
    }

    @Test("peaky audio still reaches the target after limiting takes its peaks")
    func normalizePeaky() throws {
        // Clicks every 50 ms over a quiet bed: limiting removes loudness that must be made up.
        var samples = Signals.noise(seconds: 4, decibels: -40).samples
        for index in stride(from: 0, to: samples.count, by: 1102) { for k in 0..<40 { samples[min(samples.count - 1, index + k)] += 0.9 * (k.isMultiple(of: 2) ? 1 : -1) } }
        let loud = try Loudness.normalized(AudioBuffer(sampleRate: 22050, samples: samples), to: -16)
        #expect(abs(try Loudness.integrated(loud) - (-16)) < 0.5)
        #expect(decibels(loud.peak) <= -1 + 1e-4)
    }

    @Test("the bell rings out: no clipping, a soft start, decaying to near silence")
    func bell() throws {
        let bell = Bell.meditation.render(sampleRate: 44100)
        #expect(abs(bell.duration - 6) < 0.001)
        #expect(bell.peak <= 0.8 + 1e-6)
        #expect(bell.samples.first == 0)
        let early = bell.slice(from: 0.05, to: 0.55).rms()
        let late = bell.slice(from: 5.4, to: 5.9).rms()
        #expect(decibels(early) - decibels(late) > 30)
        // Several partials: energy well above the fundamental, too.
        let spread = bell.slice(from: 0, to: 1).samples
        let crossings = zip(spread, spread.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(crossings > 250)
    }
}

@Suite("Encoding with ffmpeg")
struct EncoderTests {
    @Test("each format encodes and decodes back to the same length", arguments: AudioEncoder.Format.allCases)
    func roundTrip(format: AudioEncoder.Format) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tone.\(format.fileExtension)")
        try await AudioEncoder().encode(Signals.sine(440, seconds: 2), as: format, to: file)
        let back = try await CommandRunner.live.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", file.path, "-f", "wav", "-ac", "1", "pipe:1"], nil)
        #expect(back.status == 0)
        let decoded = try WAVFile.decode(back.output)
        #expect(abs(decoded.duration - 2) < 0.06, "\(decoded.duration)")
        // Nothing but the finished file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [file.lastPathComponent])
    }

    @Test("a failing ffmpeg is reported with what it said, and neither its half-written file nor the destination is left")
    func failure() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("never-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Like a real ffmpeg that dies midway: it has written part of its output file.
        let runner = CommandRunner { _, arguments, _ in
            let output = try #require(arguments.last)
            try Data("half an m4a".utf8).write(to: URL(fileURLWithPath: output))
            return .init(status: 1, output: Data(), errors: Data("Unknown encoder 'aac'".utf8))
        }
        let file = directory.appendingPathComponent("song.m4a")
        await #expect(throws: AudioRenderError.toolFailed(tool: "ffmpeg", status: 1, message: "Unknown encoder 'aac'")) {
            try await AudioEncoder(runner: runner).encode(Signals.sine(440, seconds: 0.1), as: .m4a, to: file)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    @Test("a missing ffmpeg says how to install it")
    func missing() async {
        let error = await #expect(throws: AudioRenderError.self) {
            try await AudioEncoder(ffmpeg: "/nonexistent/ffmpeg").encode(Signals.sine(440, seconds: 0.1), as: .mp3, to: URL(fileURLWithPath: "/tmp/x.mp3"))
        }
        #expect(error == .toolMissing("/nonexistent/ffmpeg"))
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("/nonexistent/ffmpeg is not installed"), "\(message)")
        #expect(message.contains("scripts/bootstrap.sh") && message.contains("make run"), "\(message)")
    }
}
