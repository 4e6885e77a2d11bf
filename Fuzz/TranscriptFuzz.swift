// libFuzzer harness: podcast chapters JSON and the four transcript forms (`Feeds`) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranscript(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let chapters = try? PodcastChapters.parse(bytes, url: URL(string: "https://fuzz.example/c.json")) {
        for (a, b) in zip(chapters, chapters.dropFirst()) where a.start > b.start { fatalError("chapters out of order") }
    }
    for format in [Transcripts.Format.vtt, .srt, .json, .html] {
        guard let cues = try? Transcripts.parse(bytes, format: format) else { continue }
        for cue in cues {
            if !(cue.start >= 0) || cue.text.isEmpty { fatalError("impossible cue \(cue)") }
            if let end = cue.end, end < cue.start { fatalError("cue ends before it starts: \(cue)") }
        }
    }
    return 0
}
