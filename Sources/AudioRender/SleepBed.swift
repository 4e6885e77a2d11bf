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
        var stream = Stream(self, count: count, sampleRate: sampleRate)
        let samples = stream.nextUnfaded(count)
        let loudest = samples.reduce(Float(0)) { max($0, abs($1)) }
        let gain = loudest > 0 ? peak / loudest : 0
        return AudioBuffer(sampleRate: sampleRate, samples: samples.map { $0 * gain })
            .fadingEdges(in: fadeIn, out: fadeOut)
    }

    /// The bed's loudness in LUFS at the level `Stream` makes it, measured over a minute without
    /// its fades: a level that does not depend on how long a render is.
    public func loudness(sampleRate: Int) -> Double {
        let count = AudioBuffer.sampleCount(60, sampleRate)
        var stream = Stream(self, count: count, sampleRate: sampleRate)
        return (try? Loudness.integrated(AudioBuffer(sampleRate: sampleRate, samples: stream.nextUnfaded(count)))) ?? -70
    }

    /// The bed for a render `count` samples long, made a stretch at a time (so a long render
    /// never holds it whole): the same samples, stretch by stretch, at a fixed level (its peak is
    /// not known until the end; `loudness(sampleRate:)` says how loud it is), faded in at the
    /// start and out at the end.
    public struct Stream: Sendable {
        struct Partial: Sendable {
            var level: Double
            var c = 1.0, s = 0.0, sc: Double, ss: Double
            let dc: Double, ds: Double, dsc: Double, dss: Double
        }
        let count: Int
        let fadeIn: Int, fadeOut: Int
        var partials: [Partial]
        let noise: Double
        var generator: SeededGenerator
        var brown = 0.0, smooth = 0.0
        let leak: Double, lowPass: Double
        /// Samples made so far.
        public private(set) var position = 0

        public init(_ bed: SleepBed, count: Int, sampleRate: Int) {
            let rate = Double(sampleRate)
            self.count = count
            fadeIn = min(count, AudioBuffer.sampleCount(bed.fadeIn, sampleRate))
            fadeOut = min(count, AudioBuffer.sampleCount(bed.fadeOut, sampleRate))
            // Phases kept as rotations (cos, sin) on the unit circle, the tone's and the swell's:
            // no sin() per sample.
            partials = bed.partials.enumerated().map { index, partial in
                let step = 2 * Double.pi * bed.root * partial.ratio / rate
                let swellStep = 2 * Double.pi / (partial.swell * rate)
                let swellPhase = Double(index) * 1.7
                return Partial(level: partial.level, sc: cos(swellPhase), ss: sin(swellPhase),
                               dc: cos(step), ds: sin(step), dsc: cos(swellStep), dss: sin(swellStep))
            }
            noise = bed.noise
            generator = SeededGenerator(seed: bed.seed)
            // Brown noise (integrated white noise, leaking back toward zero), then a gentle low-pass.
            leak = 1 - 20 / rate
            lowPass = 1 - exp(-2 * Double.pi * 400 / rate)
        }

        /// The next `length` samples (fewer at the end), faded where the render starts and ends.
        public mutating func next(_ length: Int) -> [Float] {
            let first = position
            var samples = nextUnfaded(length)
            FadeCurve.raisedCosine.fadeEdges(&samples, first: first, count: count, fadeIn: fadeIn, fadeOut: fadeOut)
            return samples
        }

        /// Moves on `length` samples without making them, so a render of a later part of the item
        /// carries on the same bed from there: the tones turned on at once, the noise run through
        /// (its recurrence has no shortcut; no more than a few hundredths of a second for an hour).
        public mutating func skip(_ length: Int) {
            let length = max(0, min(length, count - position))
            guard length > 0 else { return }
            for index in partials.indices {
                var p = partials[index]
                // Rotations by `length` steps: the angle's own cosine and sine, from those of one step.
                let turn = Double(length) * atan2(p.ds, p.dc), swellTurn = Double(length) * atan2(p.dss, p.dsc)
                (p.c, p.s) = (p.c * cos(turn) - p.s * sin(turn), p.s * cos(turn) + p.c * sin(turn))
                (p.sc, p.ss) = (p.sc * cos(swellTurn) - p.ss * sin(swellTurn), p.ss * cos(swellTurn) + p.sc * sin(swellTurn))
                partials[index] = p
            }
            if noise > 0 {
                for _ in 0..<length {
                    brown = brown * leak + (generator.unit() * 2 - 1) * 0.02
                    smooth += (brown - smooth) * lowPass
                }
            }
            position += length
        }

        mutating func nextUnfaded(_ length: Int) -> [Float] {
            let length = max(0, min(length, count - position))
            var samples = [Float](repeating: 0, count: length)
            let start = position
            samples.withUnsafeMutableBufferPointer { samples in
                for index in partials.indices {
                    var p = partials[index]
                    for n in 0..<length {
                        let swell = 0.6 + 0.4 * p.ss
                        samples[n] += Float(p.level * swell * p.s)
                        (p.c, p.s) = (p.c * p.dc - p.s * p.ds, p.s * p.dc + p.c * p.ds)
                        (p.sc, p.ss) = (p.sc * p.dsc - p.ss * p.dss, p.ss * p.dsc + p.sc * p.dss)
                        if (start + n) & 4095 == 0 {
                            let norm = (p.c * p.c + p.s * p.s).squareRoot(), swellNorm = (p.sc * p.sc + p.ss * p.ss).squareRoot()
                            (p.c, p.s, p.sc, p.ss) = (p.c / norm, p.s / norm, p.sc / swellNorm, p.ss / swellNorm)
                        }
                    }
                    partials[index] = p
                }
                if noise > 0 {
                    for n in 0..<length {
                        brown = brown * leak + (generator.unit() * 2 - 1) * 0.02
                        smooth += (brown - smooth) * lowPass
                        samples[n] += Float(noise * smooth * 3)
                    }
                }
            }
            position += length
            return samples
        }
    }
}

extension Mixing {
    /// `voice` over `bed`, with the bed turned down by `duck` dB wherever the voice speaks
    /// (`Ducker`, all at once). The result is as long as the longer input.
    public static func ducked(_ bed: AudioBuffer, under voice: AudioBuffer, duck: Double = 9, threshold: Double = -45,
                              attack: Double = 0.4, release: Double = 1.2) -> AudioBuffer {
        precondition(bed.sampleRate == voice.sampleRate, "sample rates differ")
        var ducker = Ducker(sampleRate: voice.sampleRate, duck: duck, threshold: threshold, attack: attack, release: release)
        var settled = ducker.push(voice.samples)
        let rest = ducker.finish(length: max(bed.samples.count, voice.samples.count))
        settled.voice += rest.voice
        settled.gains += rest.gains
        var output = settled.voice
        for index in 0..<min(bed.samples.count, output.count) { output[index] += bed.samples[index] * settled.gains[index] }
        return AudioBuffer(sampleRate: voice.sampleRate, samples: output)
    }

    /// The bed's gain under a voice that arrives a stretch at a time.
    ///
    /// The voice is heard in 10 ms blocks (RMS over `threshold` dBFS). The bed starts to dip
    /// `attack` seconds before each phrase, so it is already down when the first word comes,
    /// and rises again over `release` seconds after the last; the gain moves smoothly
    /// (raised-cosine steps), so the bed never jumps. A block's gain is settled once the voice
    /// `attack` seconds after it is known, so `push` hands back all but that much; the gains are
    /// the same however the voice is cut into stretches.
    public struct Ducker: Sendable {
        let block: Int
        let level: Float
        let before: Int, after: Int
        let down: Double, up: Double
        let floor: Double
        /// Voice samples received and not yet handed back, from `settledSamples`.
        var pending: [Float] = []
        /// Whether each whole block received so far is loud.
        var loud: [Bool] = []
        /// Blocks (and samples) handed back.
        var settledBlocks = 0
        var depth = 0.0
        /// The last loud block among those looked ahead to so far, and how far that is.
        var lastLoud = Int.min / 2, lookedAhead = 0

        public init(sampleRate: Int, duck: Double = 9, threshold: Double = -45, attack: Double = 0.4, release: Double = 1.2) {
            block = max(1, AudioBuffer.sampleCount(0.01, sampleRate))
            level = amplitude(decibels: threshold)
            before = Int((attack * Double(sampleRate)) / Double(block))
            after = Int((release * Double(sampleRate)) / Double(block))
            down = 1 / max(1, Double(before))
            up = 1 / max(1, Double(after))
            floor = Double(amplitude(decibels: -duck))
        }

        /// Takes the next stretch of voice; returns the voice and the bed's gain for as much as
        /// is settled.
        public mutating func push(_ voice: [Float]) -> (voice: [Float], gains: [Float]) {
            pending += voice
            // Each block that is now whole is heard.
            while (loud.count + 1 - settledBlocks) * block <= pending.count {
                let start = (loud.count - settledBlocks) * block
                loud.append(rms(pending[start..<start + block]) >= level)
            }
            return settle(upTo: loud.count - before)
        }

        /// The rest, for a mix `length` samples long (the voice silent after its end).
        public mutating func finish(length: Int) -> (voice: [Float], gains: [Float]) {
            let received = settledBlocks * block + pending.count
            let start = (loud.count - settledBlocks) * block
            if start < pending.count { loud.append(rms(pending[start...]) >= level) }
            if length > received { pending += [Float](repeating: 0, count: length - received) }
            let blocks = (max(length, received) + block - 1) / block
            while loud.count < blocks { loud.append(false) }
            return settle(upTo: blocks)
        }

        /// The voice of the pending blocks under `limit`, with the bed's gain for each sample.
        mutating func settle(upTo limit: Int) -> (voice: [Float], gains: [Float]) {
            guard limit > settledBlocks else { return ([], []) }
            var gains: [Float] = []
            let count = min(pending.count, (limit - settledBlocks) * block)
            gains.reserveCapacity(count)
            var blockIndex = settledBlocks
            while gains.count < count {
                // Speaking when the voice is loud anywhere from `after` blocks back to `before` ahead.
                while lookedAhead <= min(loud.count - 1, blockIndex + before) {
                    if loud[lookedAhead] { lastLoud = lookedAhead }
                    lookedAhead += 1
                }
                let speaking = lastLoud >= blockIndex - after
                let from = depth
                depth = speaking ? min(1, depth + down) : max(0, depth - up)
                let samples = min(block, count - gains.count)
                if from == depth {   // steady through the block: no cosine to work out
                    let gain = from == 0 ? 1 : Float(1 - (1 - floor) * (0.5 - 0.5 * cos(Double.pi * from)))
                    gains += repeatElement(gain, count: samples)
                } else {
                    for n in 0..<samples {
                        let d = from + (depth - from) * Double(n) / Double(block)
                        gains.append(Float(1 - (1 - floor) * (0.5 - 0.5 * cos(Double.pi * d))))   // raised cosine between full and ducked
                    }
                }
                blockIndex += 1
            }
            settledBlocks = blockIndex
            let voice = Array(pending[..<count])
            pending.removeFirst(count)
            return (voice, gains)
        }

        func rms(_ samples: ArraySlice<Float>) -> Float {
            guard !samples.isEmpty else { return 0 }
            var sum = 0.0
            for sample in samples { sum += Double(sample) * Double(sample) }
            return Float((sum / Double(samples.count)).squareRoot())
        }
    }
}
