import Foundation

/// A meditation bell, synthesized: a few inharmonic partials, each ringing down exponentially.
public struct Bell: Sendable, Equatable {
    /// One partial: a frequency ratio to the fundamental, a relative level and a decay time.
    public struct Partial: Sendable, Equatable {
        public var ratio: Double
        public var level: Double
        /// Seconds for the partial to fall by 60 dB.
        public var decay: Double

        public init(ratio: Double, level: Double, decay: Double) {
            self.ratio = ratio
            self.level = level
            self.decay = decay
        }
    }

    /// Pitch of the lowest partial, in Hz.
    public var fundamental: Double
    /// Length of the sound, in seconds.
    public var duration: Double
    public var partials: [Partial]
    /// Highest sample value, 0…1.
    public var peak: Float

    /// A singing-bowl-like bell: partials near the ratios of a struck bowl, higher ones dying sooner.
    public static let meditation = Bell(fundamental: 220, duration: 6, partials: [
        Partial(ratio: 1.0, level: 1.0, decay: 6.0),
        Partial(ratio: 2.76, level: 0.55, decay: 4.0),
        Partial(ratio: 5.40, level: 0.30, decay: 2.5),
        Partial(ratio: 8.93, level: 0.16, decay: 1.5),
        Partial(ratio: 13.34, level: 0.08, decay: 0.9),
    ], peak: 0.8)

    public init(fundamental: Double, duration: Double, partials: [Partial], peak: Float) {
        self.fundamental = fundamental
        self.duration = duration
        self.partials = partials
        self.peak = peak
    }

    /// The bell at a sample rate: a 3 ms attack (no click), ringing out to silence by `duration`.
    public func render(sampleRate: Int) -> AudioBuffer {
        let count = AudioBuffer.sampleCount(duration, sampleRate)
        var samples = [Float](repeating: 0, count: count)
        let rate = Double(sampleRate)
        for partial in partials where partial.ratio * fundamental < rate / 2 {
            let omega = 2 * Double.pi * partial.ratio * fundamental / rate
            // exp(-6.9 t / decay) falls by 60 dB over `decay` seconds.
            let damping = exp(-6.907755 / (partial.decay * rate))
            var envelope = partial.level
            for index in 0..<count {
                samples[index] += Float(envelope * sin(omega * Double(index)))
                envelope *= damping
            }
        }
        let buffer = AudioBuffer(sampleRate: sampleRate, samples: samples)
        let loudest = buffer.peak
        guard loudest > 0 else { return buffer }
        return buffer.scaled(by: peak / loudest).fadingEdges(in: 0.003, out: min(0.5, duration / 4))
    }
}
