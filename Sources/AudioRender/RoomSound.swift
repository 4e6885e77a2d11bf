import Foundation

/// The ambient sound of a Bedside room, synthesized and seeded (the same every time), made to loop
/// without a seam: the end is crossfaded into the beginning, so a player that loops it never clicks.
public enum RoomSound: String, Sendable, CaseIterable {
    /// A steady rain: filtered noise that drifts in strength, with drops landing near and far.
    case rain
    /// Waves: low noise that swells and draws back every eight to twelve seconds.
    case ocean
    /// A night forest: a breath of wind in the trees and crickets chirping.
    case forest
    /// Brown noise: deep, even, like a distant waterfall.
    case brown
    /// Nothing: the room for those who want only the voice (it still keeps the audio alive).
    case silence

    /// One loop of the room, `seconds` long, at `sampleRate`, its peak near `peak`.
    public func render(seconds: Double = 60, sampleRate: Int = 22050, peak: Float = 0.5) -> AudioBuffer {
        let overlap = 2.0
        let count = AudioBuffer.sampleCount(seconds + overlap, sampleRate)
        var generator = SeededGenerator(seed: seed)
        let rate = Double(sampleRate)
        var samples: [Float]
        switch self {
        case .silence:
            return AudioBuffer.silence(seconds: seconds, sampleRate: sampleRate)
        case .brown:
            samples = Self.brown(count, rate, &generator, cutoff: 500)
        case .rain:
            // Hiss between ~800 Hz and ~6 kHz whose strength drifts, and drops: tiny decaying ticks.
            let white = (0..<count).map { _ in Float(generator.unit() * 2 - 1) }
            let low = Self.lowPass(white, rate, cutoff: 6000)
            let body = Self.lowPass(low, rate, cutoff: 800)
            samples = zip(low, body).map { ($0 - $1) * 0.6 }
            let drift = Self.slowWave(count, rate, period: 13, depth: 0.25)
            for index in samples.indices { samples[index] *= drift[index] }
            for _ in 0..<Int((seconds + overlap) * 40) {
                let start = Int(generator.unit() * Double(count - 1))
                let level = Float(0.15 + generator.unit() * 0.5)
                let length = Int(rate * (0.004 + generator.unit() * 0.01))
                for offset in 0..<length where start + offset < count {
                    let envelope = level * Float(exp(-Double(offset) / (Double(length) / 4)))
                    samples[start + offset] += envelope * Float(generator.unit() * 2 - 1)
                }
            }
        case .ocean:
            var brown = Self.brown(count, rate, &generator, cutoff: 900)
            // Each wave: a rise over about a third of its period, a long fall, the next one a little different.
            var envelope = [Float](repeating: 0, count: count)
            var start = 0.0
            while start < seconds + overlap {
                let period = 8 + generator.unit() * 4
                let height = 0.55 + generator.unit() * 0.45
                let first = Int(start * rate), length = Int(period * rate)
                for offset in 0..<length where first + offset < count {
                    let t = Double(offset) / Double(length)
                    let shape = t < 0.3 ? sin(t / 0.3 * Double.pi / 2) : pow(cos((t - 0.3) / 0.7 * Double.pi / 2), 2)
                    envelope[first + offset] = max(envelope[first + offset], Float(0.15 + height * shape))
                }
                start += period * 0.9
            }
            for index in brown.indices { brown[index] *= envelope[index] }
            samples = brown
        case .forest:
            samples = Self.brown(count, rate, &generator, cutoff: 1200).map { $0 * 0.35 }
            let wind = Self.slowWave(count, rate, period: 17, depth: 0.6)
            for index in samples.indices { samples[index] *= wind[index] }
            // Crickets: a 4.6 kHz tone in bursts of three pulses, about once a second, never quite regular.
            var time = generator.unit()
            let pitch = 4600.0
            while time < seconds + overlap {
                let level = Float(0.05 + generator.unit() * 0.06)
                for pulse in 0..<3 {
                    let first = Int((time + Double(pulse) * 0.045) * rate), length = Int(0.03 * rate)
                    for offset in 0..<length where first + offset < count {
                        let envelope = sin(Double(offset) / Double(length) * Double.pi)
                        samples[first + offset] += level * Float(envelope * sin(2 * Double.pi * pitch * Double(offset) / rate))
                    }
                }
                time += 0.8 + generator.unit() * 0.6
            }
        }
        // The loop: the last `overlap` seconds fade out over the first ones as they fade in.
        let body = AudioBuffer.sampleCount(seconds, sampleRate), join = count - body
        var looped = Array(samples.prefix(body))
        for offset in 0..<join {
            let t = Double(offset) / Double(join)
            looped[offset] = samples[offset] * FadeCurve.equalPower.gain(t) + samples[body + offset] * FadeCurve.equalPower.gain(1 - t)
        }
        let buffer = AudioBuffer(sampleRate: sampleRate, samples: looped)
        let loudest = buffer.peak
        return loudest > 0 ? buffer.scaled(by: peak / loudest) : buffer
    }

    private var seed: UInt64 {
        switch self {
        case .rain: 0x2A1
        case .ocean: 0x0CEA
        case .forest: 0xF0E5
        case .brown: 0xB20
        case .silence: 0
        }
    }

    /// Brown noise (integrated white noise leaking back toward zero), low-passed at `cutoff`.
    static func brown(_ count: Int, _ rate: Double, _ generator: inout SeededGenerator, cutoff: Double) -> [Float] {
        var samples = [Float](repeating: 0, count: count)
        var brown = 0.0
        // Leaking back at ~8 Hz: deep, without the slow wander of pure brown noise.
        let leak = 1 - 50 / rate
        for index in 0..<count {
            brown = brown * leak + (generator.unit() * 2 - 1) * 0.02
            samples[index] = Float(brown * 3)
        }
        return lowPass(samples, rate, cutoff: cutoff)
    }

    /// A one-pole low-pass.
    static func lowPass(_ input: [Float], _ rate: Double, cutoff: Double) -> [Float] {
        let alpha = Float(1 - exp(-2 * Double.pi * cutoff / rate))
        var state: Float = 0
        return input.map { sample in
            state += (sample - state) * alpha
            return state
        }
    }

    /// 1 ± `depth`/2, on a sine of `period` seconds.
    static func slowWave(_ count: Int, _ rate: Double, period: Double, depth: Double) -> [Float] {
        (0..<count).map { Float(1 - depth / 2 + depth / 2 * sin(2 * Double.pi * Double($0) / (period * rate))) }
    }
}

/// The alarm's chime: soft bell strikes on a rising five-note figure, growing from a whisper to
/// full over `rise` seconds (the ramp is in the audio itself), then going on at full for `hold`.
public enum AlarmChime {
    public static func render(rise: Double = 60, hold: Double = 60, sampleRate: Int = 22050, peak: Float = 0.8) -> AudioBuffer {
        let notes = [523.25, 659.25, 783.99, 880.0, 1046.5]
        let strikes = stride(from: 0.0, to: rise + hold, by: 1.5).enumerated().map { index, at -> (buffer: AudioBuffer, at: Double) in
            let bell = Bell(fundamental: notes[index % notes.count], duration: 3, partials: [
                Bell.Partial(ratio: 1, level: 1, decay: 3),
                Bell.Partial(ratio: 2.01, level: 0.35, decay: 1.6),
                Bell.Partial(ratio: 3.02, level: 0.12, decay: 0.8),
            ], peak: 0.5)
            return (bell.render(sampleRate: sampleRate), at)
        }
        var mixed = Mixing.mix(strikes, sampleRate: sampleRate)
        mixed.samples = Array(mixed.samples.prefix(AudioBuffer.sampleCount(rise + hold, sampleRate)))
        // From −40 dB to full over `rise`, in decibels (so it sounds like an even rise).
        let riseCount = Double(AudioBuffer.sampleCount(rise, sampleRate))
        for index in mixed.samples.indices {
            let t = min(1, Double(index) / riseCount)
            mixed.samples[index] *= amplitude(decibels: -40 * (1 - t))
        }
        let loudest = mixed.peak
        return loudest > 0 ? mixed.scaled(by: peak / loudest).fadingEdges(in: 0.003, out: 0.5) : mixed
    }
}
