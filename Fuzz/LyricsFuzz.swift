// libFuzzer harness: lyrics analysis (`Rhymes`): line endings, rhyme groups, scheme letters and
// syllables over arbitrary text, and suggestions at a caret the input picks, with the real CMU dictionary index. libFuzzer's -timeout flags an
// input that takes too long, so a quadratic slowdown shows up here as well as a crash.
import Foundation

nonisolated(unsafe) private var engine: RhymeEngine?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLyrics(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    if engine == nil {
        let cache = URL(fileURLWithPath: ProcessInfo.processInfo.environment["REVERIE_FUZZ_CACHE"] ?? NSTemporaryDirectory())
        engine = try! RhymeEngine.installed(cacheDirectory: cache)
    }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let analysis = engine!.analyze(text)
    // At most one line more than there are line-breaking scalars (\r\n counts once, so this bounds it).
    let breaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
    let lines = text.unicodeScalars.filter { breaks.contains($0) }.count + 1
    if analysis.lines.count > lines { fatalError("\(analysis.lines.count) analysed lines from \(lines)") }
    let utf16 = text.utf16.count
    for group in analysis.groups {
        for occurrence in group.occurrences where occurrence.start < 0 || occurrence.end > utf16 || occurrence.start > occurrence.end {
            fatalError("occurrence \(occurrence) outside the text (\(utf16) UTF-16 units)")
        }
    }
    // Suggestions at a caret anywhere in the text (the size picks it).
    let suggestions = engine!.suggestions(for: text, caret: size % (utf16 + 1))
    if suggestions.replaceStart > suggestions.replaceEnd || suggestions.replaceEnd > utf16 || suggestions.suggestions.count > 50 {
        fatalError("suggestions replace \(suggestions.replaceStart)..<\(suggestions.replaceEnd) of \(utf16) UTF-16 units")
    }
    return 0
}
