import AudioRender
import Foundation
import Testing

/// Decodes any file ffmpeg reads into mono samples at its own rate.
func decoded(_ file: URL, rate: Int = 22050) async throws -> AudioBuffer {
    let result = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-ar", String(rate), "-f", "wav", "-"], nil)
    #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
    return try WAVFile.decode(result.output)
}

/// RMS level in dBFS of `seconds` of audio ending at `end`.
func level(_ buffer: AudioBuffer, endingAt end: Double, seconds: Double = 0.5) -> Double {
    let stop = min(buffer.samples.count, AudioBuffer.sampleCount(end, buffer.sampleRate))
    let start = max(0, stop - AudioBuffer.sampleCount(seconds, buffer.sampleRate))
    return decibels(buffer.rms(start..<stop))
}

func scratchFile(_ name: String) -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sleep-audio-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}

@Suite("Sleep audio: the bed, ducking and the timer's fade")
struct SleepAudioTests {
    @Test("the bed is the same every time, fades in and out, and stays under the peak asked for")
    func bed() {
        let one = SleepBed.night.render(seconds: 30, sampleRate: 8000, peak: 0.5)
        let two = SleepBed.night.render(seconds: 30, sampleRate: 8000, peak: 0.5)
        #expect(one == two)
        #expect(one.samples.count == 240_000)
        #expect(one.samples.first == 0 && abs(one.samples.last ?? 1) < 1e-6)
        #expect(one.peak <= 0.5 + 1e-6 && one.peak > 0.3)
        #expect(decibels(one.rms(80_000..<160_000)) > -30)   // audible in the middle
    }

    @Test("the bed dips under the voice by the ducking depth, already down when the voice starts, and comes back after")
    func ducking() {
        let rate = 8000
        let bed = AudioBuffer(sampleRate: rate, samples: [Float](repeating: 0.1, count: rate * 10))
        var voice = AudioBuffer.silence(seconds: 4, sampleRate: rate)
        voice.append(Signals.sine(440, seconds: 2, decibels: -12, rate: rate))
        voice.append(.silence(seconds: 4, sampleRate: rate))
        let mixed = Mixing.ducked(bed, under: voice, duck: 9)
        let bedOnly = mixed.samples.enumerated().map { $0.element - (voice.samples[$0.offset]) }
        #expect(abs(bedOnly[rate * 2] - 0.1) < 1e-4)                                   // before: full
        #expect(abs(Double(decibels(bedOnly[rate * 4])) - (-20 - 9)) < 0.5)            // at the first word: down 9 dB
        #expect(abs(Double(decibels(bedOnly[rate * 5])) - (-20 - 9)) < 0.5)
        #expect(abs(bedOnly[rate * 9] - 0.1) < 1e-4)                                   // after the release: full again
        // Never a jump: the bed's gain moves less than 0.5% per sample.
        for index in 1..<bedOnly.count { #expect(abs(bedOnly[index] - bedOnly[index - 1]) < 0.0005) }
    }

    @Test("a bed skipped ahead (a later part of an item rendered first) carries on with the samples it would have made, and still fades out at the item's end")
    func skippedBed() {
        let rate = 8000, count = rate * 600
        var made = SleepBed.Stream(.night, count: count, sampleRate: rate)
        var skipped = made
        let through = made.next(rate * 450 + 17)
        skipped.skip(rate * 450 + 17)
        #expect(skipped.position == made.position)
        let later = made.next(rate * 150), carried = skipped.next(rate * 150)
        #expect(later.count == carried.count && carried.count == rate * 150 - 17)
        let peak = later.map { abs($0) }.max() ?? 0
        #expect(peak > 0 && zip(later, carried).allSatisfy { abs($0 - $1) <= peak * 1e-6 }, "the same bed from there")
        #expect(carried.last == 0 && through.count == rate * 450 + 17, "faded out at the item's end")
        // Skipping past the end stops there.
        skipped.skip(count)
        #expect(skipped.position == count && skipped.next(10).isEmpty)
    }

    @Test("made a stretch at a time, the bed, its ducking and the limiter give the same samples as all at once")
    func stretches() {
        let rate = 8000
        var generator = SeededGenerator(seed: 7)
        func cuts(_ total: Int) -> [Int] {   // stretches of uneven length, as phrases and pauses come
            var lengths: [Int] = [], left = total
            while left > 0 { let next = min(left, Int.random(in: 1...rate * 3, using: &generator)); lengths.append(next); left -= next }
            return lengths
        }
        // The bed: the stream's stretches are the whole render's samples, at the stream's level.
        let count = rate * 30
        var stream = SleepBed.Stream(.night, count: count, sampleRate: rate)
        let streamed = cuts(count).flatMap { stream.next($0) }
        let whole = SleepBed.night.render(seconds: 30, sampleRate: rate, peak: 0.5)
        let scale = whole.samples[rate * 10] / streamed[rate * 10]
        #expect(zip(streamed, whole.samples).allSatisfy { abs($0 * scale - $1) < 1e-5 })
        #expect(streamed.count == count && streamed.first == 0)

        // Ducking under a voice of phrases and pauses, and a mix loud enough to be limited.
        var voice = AudioBuffer.silence(seconds: 1, sampleRate: rate)
        for (index, seconds) in [0.7, 2.0, 0.3, 1.5].enumerated() {
            voice.append(Signals.sine(220 * Double(index + 1), seconds: seconds, decibels: -0.5, rate: rate))
            voice.append(.silence(seconds: [0.2, 1.0, 0.05, 3][index], sampleRate: rate))
        }
        let bed = AudioBuffer(sampleRate: rate, samples: [Float](repeating: 0.2, count: voice.samples.count + rate))
        let ducked = Mixing.ducked(bed, under: voice)
        var ducker = Mixing.Ducker(sampleRate: rate)
        var parts: (voice: [Float], gains: [Float]) = ([], [])
        var offset = 0
        for length in cuts(voice.samples.count) {
            let settled = ducker.push(Array(voice.samples[offset..<offset + length]))
            parts.voice += settled.voice
            parts.gains += settled.gains
            offset += length
        }
        let rest = ducker.finish(length: bed.samples.count)
        parts.voice += rest.voice
        parts.gains += rest.gains
        var mixed = parts.voice
        for index in mixed.indices { mixed[index] += bed.samples[index] * parts.gains[index] }
        #expect(mixed.count == ducked.samples.count && mixed == ducked.samples, "ducked in stretches differs")
        #expect(abs(ducked.samples.last! - 0.2) < 1e-6, "after the voice the bed comes back up")

        #expect(ducked.peak > amplitude(decibels: -1))
        var limiter = AudioBuffer.Limiter(sampleRate: rate)
        offset = 0
        var limited: [Float] = []
        for length in cuts(ducked.samples.count) {
            limited += limiter.push(Array(ducked.samples[offset..<offset + length]))
            offset += length
        }
        limited += limiter.finish()
        // The same gains, but for the rounding of a running sum (a millionth).
        let all = ducked.limited(ceiling: -1).samples
        #expect(limited.count == all.count)
        #expect(zip(limited, all).map { abs($0 - $1) }.max()! < 1e-6)
        #expect(Double(limited.map(abs).max()!) <= Double(amplitude(decibels: -1)) + 1e-6)
    }

    @Test("a timer rendition ends at the timer, falls steadily below −60 dBFS, and matches the source up to the fade")
    func fadeOut() async throws {
        let source = scratchFile("source.m4a")
        let tone = Signals.noise(seconds: 100, decibels: -18)
        try await AudioEncoder().encode(tone, as: .m4a, to: source)
        let rendition = source.deletingLastPathComponent().appendingPathComponent("rendition.m4a")
        try await AudioFiles().fadeOut(source, at: 75.3, fade: 30, curve: "tri", into: rendition)
        let probe = try await AudioFiles().probe(rendition)
        #expect(abs(probe.duration - 75.3) < 0.05, "lasts \(probe.duration) s")
        let heard = try await decoded(rendition), original = try await decoded(source)
        #expect(abs(heard.duration - 75.3) < 0.05)
        // Up to the fade the samples are the source's (copied, not encoded again) …
        let cut = AudioBuffer.sampleCount(44, 22050)
        let difference = zip(heard.samples[cut - 22050..<cut], original.samples[cut - 22050..<cut]).map { abs($0 - $1) }.max() ?? 1
        #expect(difference < 1e-4)
        // … through the join the level holds (no gap, no click) …
        let join = AudioBuffer.sampleCount(75.3 - 30, 22050) / 1024 * 1024
        let around = heard.rms(join - 2205..<join + 2205), before = original.rms(join - 2205..<join + 2205)
        #expect(abs(decibels(around) - decibels(before)) < 0.5)
        // … then each second is quieter than the one before, and the end is silence.
        var previous = Double.infinity
        for second in stride(from: 46.0, through: 75.0, by: 1) {
            let now = level(heard, endingAt: second, seconds: 1)
            #expect(now < previous + 0.3, "at \(second) s: \(now) dBFS after \(previous)")
            previous = now
        }
        #expect(level(heard, endingAt: 75.3, seconds: 0.05) < -60)
        #expect(level(heard, endingAt: 60, seconds: 1) < level(heard, endingAt: 46, seconds: 1) - 4)
    }

    @Test("a level's rendition is the file on its own timeline at that many dB; Boost lifts it under a −1 dBFS ceiling; with an end it also fades out there")
    func levelled() async throws {
        let source = scratchFile("song.m4a")
        try await AudioEncoder().encode(Signals.noise(seconds: 40, decibels: -18), as: .m4a, to: source)
        let original = try await decoded(source), probe = try await AudioFiles().probe(source)
        let folder = source.deletingLastPathComponent()
        let ducked = folder.appendingPathComponent("ducked.m4a")
        try await AudioFiles().levelled(source, codec: probe.codec, duration: probe.duration, gain: -12, boost: false, end: nil, fade: 30, curve: "tri", into: ducked)
        let heard = try await decoded(ducked)
        #expect(abs(heard.duration - original.duration) < 0.1, "lasts \(heard.duration) s of \(original.duration)")
        for second in [5.0, 20, 39] {
            let difference = level(heard, endingAt: second, seconds: 1) - level(original, endingAt: second, seconds: 1)
            #expect(abs(difference + 12) < 0.5, "at \(second) s: \(difference) dB")
        }
        let boosted = folder.appendingPathComponent("boost.m4a")
        try await AudioFiles().levelled(source, codec: probe.codec, duration: probe.duration, gain: 0, boost: true, end: nil, fade: 30, curve: "tri", into: boosted)
        let lifted = try await decoded(boosted)
        #expect(level(lifted, endingAt: 20, seconds: 2) > level(original, endingAt: 20, seconds: 2) + 5)
        #expect(Double(lifted.samples.map(abs).max()!) < Double(amplitude(decibels: -0.5)))
        let ending = folder.appendingPathComponent("ending.m4a")
        try await AudioFiles().levelled(source, codec: probe.codec, duration: probe.duration, gain: -6, boost: false, end: 30.2, fade: 10, curve: "tri", into: ending)
        let ended = try await decoded(ending)
        #expect(abs(ended.duration - 30.2) < 0.05, "lasts \(ended.duration) s")
        #expect(abs(level(ended, endingAt: 15, seconds: 1) - level(original, endingAt: 15, seconds: 1) + 6) < 0.5)
        #expect(level(ended, endingAt: 30.2, seconds: 0.05) < -60)
        let silent = folder.appendingPathComponent("silent.m4a")
        try await AudioFiles().levelled(source, codec: probe.codec, duration: probe.duration, gain: -60, boost: false, end: nil, fade: 30, curve: "tri", into: silent)
        #expect(level(try await decoded(silent), endingAt: 20, seconds: 5) < -80)
    }

    @Test("an MP3's timer rendition is an MP3 on the same timeline: the audio before the fade is the source's frames, then it falls to silence at the timer")
    func fadeOutMP3() async throws {
        let source = scratchFile("book.mp3")
        let made = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=90",
                                                               "-c:a", "libmp3lame", "-b:a", "64k", source.path], nil)
        #expect(made.status == 0)
        let rendition = source.deletingLastPathComponent().appendingPathComponent("rendition.mp3")
        try await AudioFiles().fadeOut(source, at: 61.2, fade: 30, curve: "tri", into: rendition)
        let probe = try await AudioFiles().probe(rendition)
        #expect(probe.codec == "mp3" && probe.container == "mp3")
        #expect(abs(probe.duration - 61.2) < 0.1, "lasts \(probe.duration) s")
        let heard = try await decoded(rendition), original = try await decoded(source)
        // Before the fade: the same tone at the same level, at the same moments.
        #expect(abs(level(heard, endingAt: 20, seconds: 1) - level(original, endingAt: 20, seconds: 1)) < 0.3)
        // The same frames: a stretch of the rendition is the source's, at most 50 ms later (an MP3
        // part has no record of its encoder's delay, so the decoder does not skip it).
        let start = AudioBuffer.sampleCount(10, 22050), length = AudioBuffer.sampleCount(0.05, 22050)
        let shifts = (0...AudioBuffer.sampleCount(0.05, 22050)).map { shift in
            (shift, (0..<length).map { abs(heard.samples[start + shift + $0] - original.samples[start + $0]) }.max()!)
        }
        let best = shifts.min { $0.1 < $1.1 }!
        #expect(best.1 < 0.01, "closest at \(best.0) samples later: \(best.1)")
        // Through the fade each second is quieter, and the timer's moment is silence.
        var previous = Double.infinity
        for second in stride(from: 33.0, through: 61.0, by: 1) {
            let now = level(heard, endingAt: second, seconds: 1)
            #expect(now < previous + 0.3, "at \(second) s: \(now) dBFS after \(previous)")
            previous = now
        }
        #expect(level(heard, endingAt: 61.1, seconds: 0.1) < -50)
        #expect(level(heard, endingAt: 50, seconds: 1) < level(heard, endingAt: 33, seconds: 1) - 4)
    }

    @Test("ffprobe tells audio from other files, and levelling brings a quiet file to −16 LUFS")
    func probeAndLevel() async throws {
        let quiet = scratchFile("quiet.wav")
        let noise = Signals.noise(seconds: 12, decibels: -35)
        try WAVFile.encode(noise).write(to: quiet)
        let probe = try await AudioFiles().probe(quiet)
        #expect(probe.container == "wav" && probe.codec == "pcm_s16le" && abs(probe.duration - 12) < 0.01)
        let levelled = quiet.deletingLastPathComponent().appendingPathComponent("levelled.m4a")
        let before = try await AudioFiles().level(quiet, into: levelled)
        #expect(abs(before - (try Loudness.integrated(noise))) < 0.5)   // ffmpeg's meter agrees with ours
        #expect(abs(try await AudioFiles().loudness(of: levelled) - (-16)) < 1)

        let text = quiet.deletingLastPathComponent().appendingPathComponent("notes.mp3")
        try Data("these are not the droids".utf8).write(to: text)
        await #expect(throws: AudioRenderError.self) { try await AudioFiles().probe(text) }
    }
}
