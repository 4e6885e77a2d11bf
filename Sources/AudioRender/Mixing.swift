/// Placing buffers on a timeline and blending them.
public enum Mixing {
    /// Sums buffers placed at offsets (in seconds) into one buffer long enough for all of them.
    /// Every buffer must share `sampleRate`.
    public static func mix(_ placed: [(buffer: AudioBuffer, at: Double)], sampleRate: Int) -> AudioBuffer {
        let starts = placed.map { AudioBuffer.sampleCount($0.at, sampleRate) }
        let length = zip(placed, starts).map { $0.buffer.samples.count + $1 }.max() ?? 0
        var output = [Float](repeating: 0, count: length)
        for (item, start) in zip(placed, starts) {
            precondition(item.buffer.sampleRate == sampleRate, "sample rates differ")
            for (offset, sample) in item.buffer.samples.enumerated() { output[start + offset] += sample }
        }
        return AudioBuffer(sampleRate: sampleRate, samples: output)
    }

    /// `first` then `second`, overlapping by `seconds` with an equal-power crossfade, so the level
    /// stays steady through the join.
    public static func crossfade(_ first: AudioBuffer, _ second: AudioBuffer, seconds: Double) -> AudioBuffer {
        precondition(first.sampleRate == second.sampleRate, "sample rates differ")
        let overlap = min(AudioBuffer.sampleCount(seconds, first.sampleRate), first.samples.count, second.samples.count)
        guard overlap > 0 else { return first.appending(second) }
        var output = Array(first.samples.dropLast(overlap))
        let tail = first.samples.suffix(overlap)
        for (offset, (outgoing, incoming)) in zip(tail, second.samples.prefix(overlap)).enumerated() {
            let t = Double(offset) / Double(overlap)
            output.append(outgoing * FadeCurve.equalPower.gain(1 - t) + incoming * FadeCurve.equalPower.gain(t))
        }
        output.append(contentsOf: second.samples.dropFirst(overlap))
        return AudioBuffer(sampleRate: first.sampleRate, samples: output)
    }
}
