import AudioRender
import Testing

@Suite("Bedside room sounds and the alarm chime")
struct RoomSoundTests {
    /// The RMS level in decibels of `seconds` from `start`.
    func level(_ buffer: AudioBuffer, from start: Double, seconds: Double) -> Double {
        let first = AudioBuffer.sampleCount(start, buffer.sampleRate)
        let last = min(buffer.samples.count, first + AudioBuffer.sampleCount(seconds, buffer.sampleRate))
        return decibels(buffer.rms(first..<last))
    }

    /// Sign changes per second: high for hiss, low for rumble.
    func crossings(_ buffer: AudioBuffer) -> Double {
        let changes = zip(buffer.samples, buffer.samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(changes) / buffer.duration
    }

    @Test("each room is a minute long, the same every time, and loops without a jump in level at the seam", arguments: RoomSound.allCases.filter { $0 != .silence })
    func loops(room: RoomSound) {
        let sound = room.render(seconds: 60, sampleRate: 11025)
        #expect(abs(sound.duration - 60) < 0.001)
        #expect(sound == room.render(seconds: 60, sampleRate: 11025))
        #expect(sound.peak > 0.45 && sound.peak <= 0.5001)
        // Played twice over, the half-second either side of the seam is as loud as the sound around it.
        let twice = sound.appending(sound)
        let seam = level(twice, from: 59.5, seconds: 1)
        let around = (level(twice, from: 55, seconds: 4) + level(twice, from: 61, seconds: 4)) / 2
        #expect(abs(seam - around) < (room == .ocean ? 8 : 3), "\(room): seam \(seam) dB, around \(around) dB")
        let jump = abs(twice.samples[sound.samples.count] - twice.samples[sound.samples.count - 1])
        let steps = zip(sound.samples, sound.samples.dropFirst()).map { abs($0 - $1) }
        #expect(jump <= steps.max()!, "a click at the seam: \(jump)")
    }

    @Test("the rooms sound like themselves: rain hisses, brown noise rumbles, the ocean swells, the forest chirps, silence is silent")
    func character() {
        let rain = RoomSound.rain.render(seconds: 30, sampleRate: 22050)
        let brown = RoomSound.brown.render(seconds: 30, sampleRate: 22050)
        let ocean = RoomSound.ocean.render(seconds: 30, sampleRate: 22050)
        let forest = RoomSound.forest.render(seconds: 30, sampleRate: 22050)
        #expect(crossings(rain) > 4 * crossings(brown), "rain \(crossings(rain)), brown \(crossings(brown))")
        let oceanLevels = stride(from: 0.0, to: 29, by: 1).map { level(ocean, from: $0, seconds: 1) }
        let brownLevels = stride(from: 0.0, to: 29, by: 1).map { level(brown, from: $0, seconds: 1) }
        #expect(oceanLevels.max()! - oceanLevels.min()! > 6, "waves: \(oceanLevels)")
        #expect(brownLevels.max()! - brownLevels.min()! < 4, "brown noise is even: \(brownLevels)")
        #expect(crossings(forest) > 2 * crossings(brown), "crickets above the wind")
        #expect(RoomSound.silence.render(seconds: 10, sampleRate: 8000).peak == 0)
    }

    @Test("the chime rises from a whisper to full over its first minute, the ramp in the audio, then holds")
    func chime() {
        let chime = AlarmChime.render(rise: 60, hold: 30, sampleRate: 22050)
        #expect(abs(chime.duration - 90) < 0.01)
        let levels = stride(from: 0.0, to: 60, by: 10).map { level(chime, from: $0, seconds: 10) }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 }, "rising: \(levels)")
        #expect(level(chime, from: 60, seconds: 10) - level(chime, from: 0, seconds: 5) > 30)
        let held = stride(from: 60.0, to: 85, by: 5).map { level(chime, from: $0, seconds: 5) }
        #expect(held.max()! - held.min()! < 3, "holding: \(held)")
    }
}
