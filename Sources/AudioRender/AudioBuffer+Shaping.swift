import Foundation

/// The shape of a fade.
public enum FadeCurve: Sendable {
    /// Straight line in amplitude.
    case linear
    /// Half a cosine: starts and ends gently, for click-free edges.
    case raisedCosine
    /// Sine/cosine pair whose powers sum to one: a crossfade keeps its loudness.
    case equalPower

    /// Gain at position `t` in 0…1 of a fade in.
    func gain(_ t: Double) -> Float {
        switch self {
        case .linear: Float(t)
        case .raisedCosine: Float(0.5 - 0.5 * cos(Double.pi * t))
        case .equalPower: Float(sin(t * Double.pi / 2))
        }
    }

    /// Fades `samples`, a stretch that begins at sample `first` of audio `count` samples long,
    /// where that audio fades in over its first `fadeIn` samples and out over its last `fadeOut`
    /// (only the samples inside the fades are touched).
    func fadeEdges(_ samples: inout [Float], first: Int, count: Int, fadeIn: Int, fadeOut: Int) {
        let end = first + samples.count
        let fadingIn = max(first, 0), fadedIn = min(end, fadeIn)
        if fadeIn > 0, fadingIn < fadedIn {
            for index in fadingIn..<fadedIn { samples[index - first] *= gain(Double(index) / Double(fadeIn)) }
        }
        let fadingOut = max(first, count - fadeOut), fadedOut = min(end, count)
        if fadeOut > 0, fadingOut < fadedOut {
            for index in fadingOut..<fadedOut { samples[index - first] *= gain(Double(count - 1 - index) / Double(fadeOut)) }
        }
    }
}

extension AudioBuffer {
    /// Every sample multiplied by a linear gain.
    public func scaled(by gain: Float) -> AudioBuffer {
        AudioBuffer(sampleRate: sampleRate, samples: samples.map { $0 * gain })
    }

    /// Gain in decibels.
    public func gained(decibels: Double) -> AudioBuffer {
        scaled(by: amplitude(decibels: decibels))
    }

    /// Fades the first `seconds` in from silence and the last `seconds` out to silence.
    public func fadingEdges(in fadeIn: Double, out fadeOut: Double, curve: FadeCurve = .raisedCosine) -> AudioBuffer {
        var copy = samples
        curve.fadeEdges(&copy, first: 0, count: copy.count, fadeIn: min(copy.count, Self.sampleCount(fadeIn, sampleRate)),
                        fadeOut: min(copy.count, Self.sampleCount(fadeOut, sampleRate)))
        return AudioBuffer(sampleRate: sampleRate, samples: copy)
    }

    /// Where sound starts and ends: the first and last 5 ms window whose RMS reaches `threshold`
    /// (dBFS). `nil` when the buffer is silent throughout.
    public func audibleRange(threshold: Double = -45, window: Double = 0.005) -> Range<Int>? {
        let size = max(1, Self.sampleCount(window, sampleRate))
        let level = amplitude(decibels: threshold)
        var first: Int?
        var start = 0
        while start < samples.count {
            let range = start..<min(samples.count, start + size)
            if rms(range) >= level {
                // Within the window, begin at the first sample that itself reaches the level.
                first = range.first { abs(samples[$0]) >= level } ?? range.lowerBound
                break
            }
            start += size
        }
        guard let first else { return nil }
        var end = samples.count
        while end > first {
            let range = max(first, end - size)..<end
            if rms(range) >= level {
                let last = range.last { abs(samples[$0]) >= level } ?? (range.upperBound - 1)
                return first..<(last + 1)
            }
            end -= size
        }
        return first..<(first + 1)
    }

    /// The buffer without its leading and trailing silence (see `audibleRange`); empty when silent.
    public func trimmingSilence(threshold: Double = -45) -> AudioBuffer {
        guard let range = audibleRange(threshold: threshold) else { return AudioBuffer(sampleRate: sampleRate) }
        return AudioBuffer(sampleRate: sampleRate, samples: Array(samples[range]))
    }

    /// Keeps every sample at or under `ceiling` (dBFS) by turning the gain down smoothly around loud
    /// peaks (2.5 ms look-ahead and release), leaving the rest untouched.
    public func limited(ceiling: Double = -1) -> AudioBuffer {
        let limit = amplitude(decibels: ceiling)
        guard peak > limit else { return self }
        let half = max(1, Self.sampleCount(0.0025, sampleRate))
        let needed = samples.map { abs($0) > limit ? limit / abs($0) : 1 }
        // The smallest needed gain within ±2·half samples (a sliding minimum: the window's
        // candidates kept in a queue of rising values, so each sample enters and leaves once) …
        let reach = 2 * half
        var floor = [Float](repeating: 1, count: needed.count)
        var candidates = [Int]()
        candidates.reserveCapacity(needed.count)
        var front = 0
        for entering in 0..<(needed.count + reach) {
            if entering < needed.count {
                while candidates.count > front, needed[candidates[candidates.count - 1]] >= needed[entering] { candidates.removeLast() }
                candidates.append(entering)
            }
            let index = entering - reach
            guard index >= 0 else { continue }
            while candidates[front] < index - reach { front += 1 }
            floor[index] = needed[candidates[front]]
        }
        // … averaged over ±half samples: smooth, and never above what any sample needs.
        var gains = [Float](repeating: 1, count: needed.count)
        var sum = 0.0   // a running sum: in Double, so its rounding never drifts into the gains
        var window = 0
        for index in 0..<min(half, floor.count) { sum += Double(floor[index]); window += 1 }
        for index in floor.indices {
            let entering = index + half
            if entering < floor.count { sum += Double(floor[entering]); window += 1 }
            let leaving = index - half - 1
            if leaving >= 0 { sum -= Double(floor[leaving]); window -= 1 }
            gains[index] = Float(min(1, sum / Double(window)))
        }
        var output = samples
        for index in output.indices {
            output[index] *= gains[index]
            output[index] = max(-limit, min(limit, output[index]))
        }
        return AudioBuffer(sampleRate: sampleRate, samples: output)
    }

    /// `limited(ceiling:)` for audio that arrives a stretch at a time: a sample's gain depends on
    /// the samples within 5 ms of it, so each stretch is limited with that much of what came
    /// before and after it, and handed back 5 ms late. The samples are the same as limiting the
    /// whole at once.
    public struct Limiter: Sendable {
        let ceiling: Double
        let sampleRate: Int
        /// How far a sample's gain reaches on each side.
        let reach: Int
        /// The last `reach` samples handed back, as they came in (the next stretch's left context).
        var context: [Float] = []
        /// Samples received and not yet handed back.
        var pending: [Float] = []

        public init(sampleRate: Int, ceiling: Double = -1) {
            self.ceiling = ceiling
            self.sampleRate = sampleRate
            let half = max(1, AudioBuffer.sampleCount(0.0025, sampleRate))
            reach = 3 * half
        }

        /// Takes the next stretch; returns what is settled.
        public mutating func push(_ samples: [Float]) -> [Float] {
            pending += samples
            guard pending.count > reach else { return [] }
            return settle(count: pending.count - reach)
        }

        /// The rest.
        public mutating func finish() -> [Float] { settle(count: pending.count) }

        mutating func settle(count: Int) -> [Float] {
            let window = AudioBuffer(sampleRate: sampleRate, samples: context + pending)
            let limited = window.limited(ceiling: ceiling).samples
            let settled = Array(limited[context.count..<context.count + count])
            context = Array((context + pending[..<count]).suffix(reach))
            pending.removeFirst(count)
            return settled
        }
    }

    /// The buffer at another sample rate, by linear interpolation (adequate for speech).
    public func resampled(to rate: Int) -> AudioBuffer {
        guard rate != sampleRate, !samples.isEmpty else { return AudioBuffer(sampleRate: rate, samples: samples) }
        let count = Int((Double(samples.count) * Double(rate) / Double(sampleRate)).rounded())
        let step = Double(sampleRate) / Double(rate)
        var output = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let position = Double(index) * step
            let lower = min(samples.count - 1, Int(position))
            let upper = min(samples.count - 1, lower + 1)
            let fraction = Float(position - Double(lower))
            output[index] = samples[lower] * (1 - fraction) + samples[upper] * fraction
        }
        return AudioBuffer(sampleRate: rate, samples: output)
    }
}
