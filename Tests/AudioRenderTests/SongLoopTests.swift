import AudioRender
import Foundation
import Testing

@Suite("Song loops: ends snapped so the join does not click")
struct SongLoopTests {
    /// Two seconds of a chord, left and right different, interleaved.
    static func chord(sampleRate: Int = 44100) -> SongLoop {
        var samples: [Float] = []
        for frame in 0..<(2 * sampleRate) {
            let t = Double(frame) / Double(sampleRate)
            samples.append(Float(0.3 * sin(2 * .pi * 220 * t) + 0.2 * sin(2 * .pi * 331 * t) + 0.1 * sin(2 * .pi * 1047 * t)))
            samples.append(Float(0.3 * sin(2 * .pi * 220 * t) + 0.2 * sin(2 * .pi * 277 * t) + 0.1 * sin(2 * .pi * 880 * t)))
        }
        return SongLoop(samples: samples, channels: 2, sampleRate: sampleRate)
    }

    @Test("a snapped loop's joins jump no more than the music; cut where asked, they click")
    func joins() {
        let chord = Self.chord()
        for (start, end) in [(0.2013, 1.4567), (0.5, 1.5), (0.31, 0.42)] {
            let range = chord.snappedRange(from: Int(start * 44100), to: Int(end * 44100))
            #expect(abs(range.lowerBound - Int(start * 44100)) <= 221 && abs(range.upperBound - Int(end * 44100)) <= 221)
            let looped = chord.repeated(range, times: 5)
            #expect(looped.frameCount == 5 * range.count)
            let (joins, inside) = looped.joins(loopLength: range.count)
            #expect(joins.count == 4 && joins.allSatisfy { $0 <= inside }, "\(start)–\(end): \(joins) vs \(inside) at \(range)")
        }
        // Cut where asked, with nothing before it to fade into.
        let (a, b) = (Int(0.2013 * 44100), Int(1.4567 * 44100))
        let cut = SongLoop(samples: Array(chord.samples[(a * 2)..<(b * 2)]), channels: 2, sampleRate: 44100)
        let naive = cut.repeated(0..<cut.frameCount, times: 3).joins(loopLength: cut.frameCount)
        #expect(naive.joins.allSatisfy { $0 > naive.largestInside })
    }
}
