import Foundation

/// A soft bed for sleep audio, synthesized: a low drone of a few harmonic partials whose levels
/// breathe on slow cycles that never line up, over quiet brown noise, fading in and out.
///
/// The same settings always give the same samples (the noise comes from a seeded generator), so a
/// render that uses the bed can be cached by its settings.
public struct SleepBed: Sendable, Equatable {
    /// One partial of the drone.
    public struct Partial: Sendable, Equatable {
        /// Frequency as a multiple of `root`.
        public var ratio: Double
        public var level: Double
        /// Seconds for one slow swell of its level.
        public var swell: Double

        public init(ratio: Double, level: Double, swell: Double) {
            self.ratio = ratio
            self.level = level
            self.swell = swell
        }
    }

    /// The drone's lowest pitch, in Hz.
    public var root: Double
    public var partials: [Partial]
    /// The noise's level beside the drone's (0 for none).
    public var noise: Double
    public var fadeIn: Double
    public var fadeOut: Double
    public var seed: UInt64

    /// A low G with its fifth, octave and twelfth, swelling over 23 to 47 s, and a breath of
    /// noise like distant surf.
    public static let night = SleepBed(root: 98, partials: [
        Partial(ratio: 1, level: 1, swell: 29),
        Partial(ratio: 1.5, level: 0.45, swell: 37),
        Partial(ratio: 2, level: 0.3, swell: 23),
        Partial(ratio: 3, level: 0.12, swell: 47),
    ], noise: 0.5, fadeIn: 8, fadeOut: 12, seed: 0x5EED)

    public init(root: Double, partials: [Partial], noise: Double, fadeIn: Double, fadeOut: Double, seed: UInt64) {
        self.root = root
        self.partials = partials
        self.noise = noise
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.seed = seed
    }

    /// The bed, `seconds` long, with its peak at `peak` (0…1).
    public func render(seconds: Double, sampleRate: Int, peak: Float = 0.5) -> AudioBuffer {
        let count = AudioBuffer.sampleCount(seconds, sampleRate)
        var samples = [Float](repeating: 0, count: count)
        let rate = Double(sampleRate)
        for (index, partial) in partials.enumerated() {
            let step = 2 * Double.pi * root * partial.ratio / rate
            let swellStep = 2 * Double.pi / (partial.swell * rate)
            let swellPhase = Double(index) * 1.7
            // Phases accumulated in rotations (cos, sin) kept on the unit circle, the tone's and the
            // swell's: no sin() per sample.
            var (c, s) = (1.0, 0.0)
            let (dc, ds) = (cos(step), sin(step))
            var (sc, ss) = (cos(swellPhase), sin(swellPhase))
            let (dsc, dss) = (cos(swellStep), sin(swellStep))
            samples.withUnsafeMutableBufferPointer { samples in
                for n in 0..<count {
                    let swell = 0.6 + 0.4 * ss
                    samples[n] += Float(partial.level * swell * s)
                    (c, s) = (c * dc - s * ds, s * dc + c * ds)
                    (sc, ss) = (sc * dsc - ss * dss, ss * dsc + sc * dss)
                    if n & 4095 == 0 {
                        let norm = (c * c + s * s).squareRoot(), swellNorm = (sc * sc + ss * ss).squareRoot()
                        (c, s, sc, ss) = (c / norm, s / norm, sc / swellNorm, ss / swellNorm)
                    }
                }
            }
        }
        if noise > 0 {
            var generator = SeededGenerator(seed: seed)
            // Brown noise (integrated white noise, leaking back toward zero), then a gentle low-pass.
            var brown = 0.0, smooth = 0.0
            let leak = 1 - 20 / rate, lowPass = 1 - exp(-2 * Double.pi * 400 / rate)
            for n in 0..<count {
                brown = brown * leak + (generator.unit() * 2 - 1) * 0.02
                smooth += (brown - smooth) * lowPass
                samples[n] += Float(noise * smooth * 3)
            }
        }
        let loudest = samples.reduce(Float(0)) { max($0, abs($1)) }
        let gain = loudest > 0 ? peak / loudest : 0
        return AudioBuffer(sampleRate: sampleRate, samples: samples.map { $0 * gain })
            .fadingEdges(in: fadeIn, out: fadeOut)
    }
}

extension Mixing {
    /// `voice` over `bed`, with the bed turned down by `duck` dB wherever the voice speaks.
    ///
    /// The voice is heard in 10 ms blocks (RMS over `threshold` dBFS). The bed starts to dip
    /// `attack` seconds before each phrase, so it is already down when the first word comes,
    /// and rises again over `release` seconds after the last; the gain moves smoothly
    /// (raised-cosine steps), so the bed never jumps. The result is as long as the longer input.
    public static func ducked(_ bed: AudioBuffer, under voice: AudioBuffer, duck: Double = 9, threshold: Double = -45,
                              attack: Double = 0.4, release: Double = 1.2) -> AudioBuffer {
        precondition(bed.sampleRate == voice.sampleRate, "sample rates differ")
        let rate = voice.sampleRate
        let block = max(1, AudioBuffer.sampleCount(0.01, rate))
        let level = amplitude(decibels: threshold)
        let blocks = (voice.samples.count + block - 1) / block
        // 1 where the voice speaks (widened by attack before and release after), else 0.
        var speaking = [Bool](repeating: false, count: blocks)
        let before = Int((attack * Double(rate)) / Double(block)), after = Int((release * Double(rate)) / Double(block))
        for index in 0..<blocks where voice.rms(index * block..<min(voice.samples.count, (index + 1) * block)) >= level {
            for other in max(0, index - before)...min(blocks - 1, index + after) { speaking[other] = true }
        }
        // The block targets smoothed by moving toward them over `attack` (down) or `release` (up).
        var depth = [Double](repeating: 0, count: blocks + 1)
        let down = 1 / max(1, Double(before)), up = 1 / max(1, Double(after))
        var current = 0.0
        for index in 0..<blocks {
            current = speaking[index] ? min(1, current + down) : max(0, current - up)
            depth[index + 1] = current
        }
        let floor = Double(amplitude(decibels: -duck))
        let length = max(bed.samples.count, voice.samples.count)
        var output = [Float](repeating: 0, count: length)
        output.withUnsafeMutableBufferPointer { output in
            voice.samples.withUnsafeBufferPointer { voiceSamples in
                bed.samples.withUnsafeBufferPointer { bedSamples in
                    for n in 0..<length {
                        var sample = n < voiceSamples.count ? voiceSamples[n] : 0
                        if n < bedSamples.count {
                            let position = Double(n) / Double(block)
                            let index = min(blocks, Int(position))
                            let next = min(blocks, index + 1)
                            let gain: Float
                            if depth[index] == depth[next] {   // steady through the block: no cosine to work out
                                gain = depth[index] == 0 ? 1 : Float(1 - (1 - floor) * (0.5 - 0.5 * cos(Double.pi * depth[index])))
                            } else {
                                let t = position - Double(index)
                                let d = depth[index] + (depth[next] - depth[index]) * t
                                let eased = 0.5 - 0.5 * cos(Double.pi * d)   // raised-cosine between full and ducked
                                gain = Float(1 - (1 - floor) * eased)
                            }
                            sample += bedSamples[n] * gain
                        }
                        output[n] = sample
                    }
                }
            }
        }
        return AudioBuffer(sampleRate: rate, samples: output)
    }
}
