import AudioRender
import Foundation
import Testing

@Suite("Audio buffers")
struct AudioBufferTests {
    @Test("silence is exactly the requested number of samples, all zero")
    func silence() {
        let silence = AudioBuffer.silence(seconds: 0.3, sampleRate: 22050)
        #expect(silence.samples.count == 6615)
        #expect(silence.peak == 0)
        #expect(AudioBuffer.silence(seconds: 3, sampleRate: 48000).duration == 3)
    }

    @Test("fades start and end at zero and rise smoothly")
    func fades() {
        let faded = Signals.sine(440, seconds: 0.5, decibels: 0).fadingEdges(in: 0.01, out: 0.01)
        #expect(faded.samples.first == 0)
        #expect(abs(faded.samples.last!) < 0.01)
        let rise = Array(faded.samples.prefix(220)).map(abs)
        #expect(rise.max()! <= 1)
        #expect(Signals.sine(440, seconds: 0.5, decibels: 0).rms() > faded.rms())
    }

    @Test("trimming finds the sound inside surrounding silence, to within 5 ms")
    func trimming() {
        let rate = 22050
        let tone = Signals.sine(300, seconds: 1.0, decibels: -12, rate: rate)
        let padded = AudioBuffer.silence(seconds: 0.4, sampleRate: rate).appending(tone).appending(.silence(seconds: 0.7, sampleRate: rate))
        let trimmed = padded.trimmingSilence()
        #expect(abs(trimmed.duration - 1.0) < 0.005)
        let range = padded.audibleRange()!
        #expect(abs(Double(range.lowerBound) / Double(rate) - 0.4) < 0.005)
        #expect(AudioBuffer.silence(seconds: 1, sampleRate: rate).trimmingSilence().samples.isEmpty)
    }

    @Test("an equal-power crossfade keeps the level through the join")
    func crossfade() {
        let a = Signals.noise(seconds: 1, seed: 1), b = Signals.noise(seconds: 1, seed: 2)
        let joined = Mixing.crossfade(a, b, seconds: 0.5)
        #expect(joined.samples.count == a.samples.count + b.samples.count - 11025)
        let middle = joined.slice(from: 0.55, to: 0.95).rms()
        #expect(abs(decibels(middle) - decibels(a.rms())) < 1.0)
    }

    @Test("mixing places buffers at their offsets and sums overlaps")
    func mixing() {
        let one = AudioBuffer(sampleRate: 10, samples: [1, 1, 1])
        let two = AudioBuffer(sampleRate: 10, samples: [0.5, 0.5])
        let mixed = Mixing.mix([(one, 0), (two, 0.2)], sampleRate: 10)
        #expect(mixed.samples == [1, 1, 1.5, 0.5])
    }

    @Test("the limiter holds peaks at the ceiling and leaves quiet parts alone")
    func limiter() {
        var samples = Signals.sine(200, seconds: 1, decibels: -20).samples
        for index in 11000..<11050 { samples[index] = index.isMultiple(of: 2) ? 1.4 : -1.4 }
        let limited = AudioBuffer(sampleRate: 22050, samples: samples).limited(ceiling: -1)
        #expect(decibels(limited.peak) <= -1.0 + 1e-4)
        #expect(limited.samples[0..<5000] == samples[0..<5000])
    }

    @Test("the limiter's gain is the smallest any sample within 5 ms needs, smoothed: the same as working it out sample by sample")
    func limiterGainMatchesDirectMinimum() {
        var generator = SeededGenerator(seed: 11)
        let samples = (0..<6000).map { _ in Float.random(in: -1.6...1.6, using: &generator) * (Bool.random(using: &generator) ? 1 : 0.3) }
        let buffer = AudioBuffer(sampleRate: 22050, samples: samples)
        let limited = buffer.limited(ceiling: -1)
        // The same gains worked out directly: each sample's need spread over ±2·half samples.
        let limit = amplitude(decibels: -1)
        let half = AudioBuffer.sampleCount(0.0025, 22050)
        let needed = samples.map { abs($0) > limit ? limit / abs($0) : 1 }
        var floor = [Float](repeating: 1, count: needed.count)
        for index in needed.indices where needed[index] < 1 {
            for other in max(0, index - 2 * half)...min(needed.count - 1, index + 2 * half) { floor[other] = min(floor[other], needed[index]) }
        }
        var expected = samples
        for index in expected.indices {
            let window = max(0, index - half)...min(floor.count - 1, index + half)
            let gain = min(1, window.reduce(Float(0)) { $0 + floor[$1] } / Float(window.count))
            expected[index] = max(-limit, min(limit, samples[index] * gain))
        }
        for index in samples.indices { #expect(abs(limited.samples[index] - expected[index]) < 1e-4, "sample \(index)") }
        #expect(decibels(limited.peak) <= -1 + 1e-4)
    }

    @Test("resampling keeps the duration and the pitch")
    func resampling() {
        let tone = Signals.sine(440, seconds: 1, rate: 22050)
        let up = tone.resampled(to: 48000)
        #expect(up.samples.count == 48000)
        // Zero crossings per second ≈ 2 × 440.
        let crossings = zip(up.samples, up.samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(crossings - 440) <= 2)
    }
}

@Suite("WAV files")
struct WAVFileTests {
    @Test("16-bit round trip keeps every sample within one step")
    func roundTrip() throws {
        let tone = Signals.sine(440, seconds: 0.25)
        let decoded = try WAVFile.decode(WAVFile.encode(tone))
        #expect(decoded.sampleRate == 22050)
        #expect(decoded.samples.count == tone.samples.count)
        let worst = zip(decoded.samples, tone.samples).map { abs($0 - $1) }.max()!
        #expect(worst <= 1.0 / 32767 + 1e-6)
    }

    @Test("a float file written keeps every sample exactly, at four bytes a sample")
    func floatRoundTrip() throws {
        let tone = Signals.sine(440, seconds: 0.25)
        let header = WAVFile.header(sampleRate: tone.sampleRate, samples: tone.samples.count, sample: .float32)
        let bytes = WAVFile.Sample.float32.encode(tone.samples)
        #expect(bytes.count == 4 * tone.samples.count && header.count == WAVFile.headerSize)
        let decoded = try WAVFile.decode(Data(header + bytes))
        #expect(decoded.sampleRate == tone.sampleRate && decoded.samples == tone.samples)
    }

    @Test("float and stereo files are read and mixed to mono")
    func floatStereo() throws {
        var data = Data("RIFF".utf8) + le32(36 + 16) + Data("WAVE".utf8) + Data("fmt ".utf8) + le32(16)
        data += le16(3) + le16(2) + le32(8000) + le32(8000 * 8) + le16(8) + le16(32)
        data += Data("data".utf8) + le32(16)
        for value: Float in [0.5, 0.25, -1, 1] { data += le32(value.bitPattern) }
        let decoded = try WAVFile.decode(data)
        #expect(decoded.sampleRate == 8000)
        #expect(decoded.samples == [0.375, 0])
    }

    static let malformedCases: [(Data, String)] = {
        let riff = Data("RIFF".utf8), wave = Data("WAVE".utf8), fmt = Data("fmt ".utf8), data = Data("data".utf8)
        let pcm4bit = join(le16(2), le16(1), le32(8000), le32(8000), le16(1), le16(4))
        return [
            (Data("hello".utf8), "not a RIFF/WAVE file"),
            (join(riff, le32(4), wave), "no data chunk"),
            (join(riff, le32(20), wave, data, le32(0)), "data before fmt"),
            (join(riff, le32(36), wave, fmt, le32(16), pcm4bit, data, le32(0)), "not supported"),
            (join(riff, le32(36), wave, fmt, le32(1000)), "runs past the end"),
        ]
    }()

    @Test("malformed files are refused with a reason", arguments: malformedCases)
    func malformed(data: Data, reason: String) {
        #expect {
            try WAVFile.decode(data)
        } throws: { error in
            guard case let AudioRenderError.malformedWAV(message) = error else { return false }
            return message.contains(reason)
        }
    }
}

func le16(_ value: UInt16) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
func le32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
func le32(_ value: Int) -> Data { le32(UInt32(value)) }
func join(_ parts: Data...) -> Data { parts.reduce(Data(), +) }
