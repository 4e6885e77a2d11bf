/// Matches the words of a phrase to the spoken word spans an engine reports.
///
/// Engines do not split words the way text does (Piper joins "for the" into one span, reads
/// "1990" as several), so: when the counts agree, word *i* gets span *i*; otherwise each word is
/// placed by its share of the phrase's letters along the spoken time (the spans laid end to end,
/// leaving out the gaps between them).
public enum WordAligner {
    /// The words of a phrase: white-space separated pieces holding a letter or digit.
    public static func words(in text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.contains { $0.isLetter || $0.isNumber } }
    }

    /// Word timings for `text` from spoken spans (in seconds, in order).
    public static func align(_ text: String, spans: [(start: Double, end: Double)]) -> [WordTiming] {
        let words = words(in: text)
        let spans = spans.filter { $0.end > $0.start }
        guard !words.isEmpty, !spans.isEmpty else { return [] }
        if words.count == spans.count {
            return zip(words, spans).map { WordTiming(text: $0, start: $1.start, end: $1.end) }
        }
        let spoken = spans.reduce(0) { $0 + ($1.end - $1.start) }
        let letters = Double(words.reduce(0) { $0 + $1.count })

        /// Real time at a fraction of the spoken time.
        func time(at fraction: Double) -> Double {
            var remaining = fraction * spoken
            for span in spans {
                let length = span.end - span.start
                if remaining <= length { return span.start + remaining }
                remaining -= length
            }
            return spans[spans.count - 1].end
        }

        var before = 0.0
        return words.map { word in
            let start = time(at: before / letters)
            before += Double(word.count)
            return WordTiming(text: word, start: start, end: time(at: before / letters))
        }
    }
}
