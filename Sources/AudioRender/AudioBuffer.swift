import Foundation

/// Mono audio as 32-bit float samples in −1…1 at a sample rate.
///
/// A value type: every operation returns a new buffer, so a phrase can be trimmed, faded and
/// placed without touching the original.
public struct AudioBuffer: Sendable, Equatable {
    /// Samples per second.
    public var sampleRate: Int
    /// The samples, nominally in −1…1.
    public var samples: [Float]

    public init(sampleRate: Int, samples: [Float] = []) {
        precondition(sampleRate > 0, "sample rate must be positive")
        self.sampleRate = sampleRate
        self.samples = samples
    }

    /// `seconds` of digital silence (exactly `round(seconds × rate)` samples).
    public static func silence(seconds: Double, sampleRate: Int) -> AudioBuffer {
        AudioBuffer(sampleRate: sampleRate, samples: [Float](repeating: 0, count: sampleCount(seconds, sampleRate)))
    }

    /// Samples for a duration at a rate, rounded to the nearest sample.
    public static func sampleCount(_ seconds: Double, _ sampleRate: Int) -> Int {
        max(0, Int((seconds * Double(sampleRate)).rounded()))
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(sampleRate) }

    /// Largest absolute sample value.
    public var peak: Float { samples.reduce(0) { max($0, abs($1)) } }

    /// Root-mean-square level of the samples in `range` (all when nil).
    public func rms(_ range: Range<Int>? = nil) -> Float {
        let range = range ?? samples.indices
        guard !range.isEmpty else { return 0 }
        var sum: Double = 0
        for index in range { sum += Double(samples[index]) * Double(samples[index]) }
        return Float((sum / Double(range.count)).squareRoot())
    }

    /// This buffer followed by `other` (which must share the sample rate).
    public func appending(_ other: AudioBuffer) -> AudioBuffer {
        precondition(other.sampleRate == sampleRate || other.samples.isEmpty, "sample rates differ")
        return AudioBuffer(sampleRate: sampleRate, samples: samples + other.samples)
    }

    /// Appends `other` in place.
    public mutating func append(_ other: AudioBuffer) {
        precondition(other.sampleRate == sampleRate || other.samples.isEmpty, "sample rates differ")
        samples.append(contentsOf: other.samples)
    }

    /// The samples between two times, in seconds (clamped to the buffer).
    public func slice(from start: Double, to end: Double) -> AudioBuffer {
        let lower = min(samples.count, Self.sampleCount(start, sampleRate))
        let upper = max(lower, min(samples.count, Self.sampleCount(end, sampleRate)))
        return AudioBuffer(sampleRate: sampleRate, samples: Array(samples[lower..<upper]))
    }
}

/// Decibels relative to full scale for a linear amplitude (−∞ for 0).
public func decibels(_ amplitude: Float) -> Double {
    amplitude > 0 ? 20 * log10(Double(amplitude)) : -.infinity
}

/// Linear amplitude for decibels relative to full scale.
public func amplitude(decibels: Double) -> Float {
    Float(pow(10, decibels / 20))
}
