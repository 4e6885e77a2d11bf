import Foundation

/// Integrated loudness per ITU-R BS.1770-4 / EBU R128, for mono audio.
///
/// K-weighting (a high shelf of about +4 dB above 1.5 kHz, then a high-pass at about 38 Hz) with
/// coefficients derived for any sample rate, mean square over 400 ms blocks every 100 ms, an
/// absolute gate at −70 LUFS and a relative gate 10 LU under the ungated level.
public enum Loudness {
    /// Integrated loudness in LUFS.
    /// - Throws: `AudioRenderError.tooQuietToMeasure` for silence or audio under 400 ms.
    public static func integrated(_ buffer: AudioBuffer) throws -> Double {
        // A block is four steps of 100 ms (at a rate that is not a multiple of 10 Hz, a step is
        // rounded to whole samples and the block is four of them).
        let step = AudioBuffer.sampleCount(0.1, buffer.sampleRate)
        guard step > 0, buffer.samples.count >= 4 * step else { throw AudioRenderError.tooQuietToMeasure }
        let powers = blockPowers(buffer, step: step)

        func lufs(_ power: Double) -> Double { -0.691 + 10 * log10(power) }
        let absolute = powers.filter { $0 > 0 && lufs($0) > -70 }
        guard !absolute.isEmpty else { throw AudioRenderError.tooQuietToMeasure }
        let relativeGate = lufs(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let gated = absolute.filter { lufs($0) > relativeGate }
        return lufs(gated.reduce(0, +) / Double(gated.count))
    }

    /// The buffer brought to `target` LUFS with no sample over `ceiling` dBFS.
    ///
    /// Limiting speech's tall peaks takes some loudness away, so the level is measured again after
    /// each limiting pass and the shortfall made up, until within 0.1 LU (at most four passes).
    /// - Parameter quiet: seconds of silence measured on each side of the buffer: a short piece
    ///   measured as it will be heard between pauses (the meter's blocks that take in its edges
    ///   count), and one shorter than a 400 ms block measured at all.
    public static func normalized(_ buffer: AudioBuffer, to target: Double = -16, ceiling: Double = -1,
                                  between quiet: Double = 0) throws -> AudioBuffer {
        let padding = AudioBuffer.silence(seconds: quiet, sampleRate: buffer.sampleRate)
        func measure(_ audio: AudioBuffer) throws -> Double {
            quiet > 0 ? try integrated(padding.appending(audio).appending(padding)) : try integrated(audio)
        }
        var gain = target - (try measure(buffer))
        var result = buffer.gained(decibels: gain).limited(ceiling: ceiling)
        for _ in 0..<3 {
            let shortfall = target - (try measure(result))
            guard abs(shortfall) > 0.1 else { break }
            gain += shortfall
            result = buffer.gained(decibels: gain).limited(ceiling: ceiling)
        }
        return result
    }

    /// Mean squares of the K-weighted audio over blocks of four steps, a step apart: the weighted
    /// samples are summed a step at a time as they are made, and each block adds four step sums
    /// (no array as long as the audio).
    static func blockPowers(_ buffer: AudioBuffer, step: Int) -> [Double] {
        let rate = Double(buffer.sampleRate)
        var first = shelf(rate: rate), second = highPass(rate: rate)
        var steps: [Double] = []
        steps.reserveCapacity(buffer.samples.count / step + 1)
        buffer.samples.withUnsafeBufferPointer { input in
            var start = 0
            while start + step <= input.count {
                var sum = 0.0
                for index in start..<(start + step) {
                    let value = second.next(first.next(Double(input[index])))
                    sum += value * value
                }
                steps.append(sum)
                start += step
            }
        }
        guard steps.count >= 4 else { return [] }
        let block = Double(4 * step)
        return (0...(steps.count - 4)).map { (steps[$0] + steps[$0 + 1] + steps[$0 + 2] + steps[$0 + 3]) / block }
    }

    // MARK: - K-weighting

    /// A biquad: b0, b1, b2, a1, a2 (a0 normalised to 1).
    struct Biquad {
        var b0, b1, b2, a1, a2: Double
        var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

        init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
            (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
        }

        /// The next output for input `x`.
        @inline(__always)
        mutating func next(_ x: Double) -> Double {
            var y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            // In silence the feedback decays into subnormal numbers, which processors handle
            // many times slower; anything this small is silence.
            if abs(y) < 1e-30 { y = 0 }
            (x2, x1, y2, y1) = (x1, x, y1, y)
            return y
        }
    }

    /// Stage 1: the head's acoustic effect, a high shelf (BS.1770 pre-filter) at `rate`.
    static func shelf(rate: Double) -> Biquad {
        let f0 = 1681.974450955533, gain = 3.999843853973347, q = 0.7071752369554196
        let k = tan(Double.pi * f0 / rate)
        let vh = pow(10, gain / 20)
        let vb = pow(vh, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        return Biquad(b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                      a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
    }

    /// Stage 2: the revised low-frequency B-curve, a high-pass (BS.1770 RLB filter) at `rate`.
    static func highPass(rate: Double) -> Biquad {
        let f0 = 38.13547087602444, q = 0.5003270373238773
        let k = tan(Double.pi * f0 / rate)
        let a0 = 1 + k / q + k * k
        return Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
    }
}
