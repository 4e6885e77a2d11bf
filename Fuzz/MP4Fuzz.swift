// libFuzzer harness: the MP4/M4A/M4B reader (`MediaFormats`) over arbitrary bytes, and the reading
// of an M4A on another server (its `moov` found from its boxes' headers, its AAC frames as ADTS).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let source = MemoryByteSource(bytes)
    // Straight to the MP4 reader, whatever the first box is, so every input reaches the box walker.
    if let media = try? MP4Reader.parse(source) {
        // What it reads is well-formed: chapters in order, each ending at or after its start.
        for (chapter, next) in zip(media.chapters, media.chapters.dropFirst()) where chapter.start > next.start || chapter.end < chapter.start {
            fatalError("chapters out of order: \(media.chapters)")
        }
    }
    // As a remote M4A is read: its movie found from the first bytes, then its frames from the middle.
    guard case .movie(let range)? = try? MP4Audio.findMovie(in: Array(bytes.prefix(4_096)), at: 0, size: Int64(size)),
          range.upperBound <= Int64(size),
          let audio = try? MP4Audio.read(movie: Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), size: Int64(size)) else { return 0 }
    let (index, at) = audio.frame(before: audio.duration / 2)
    guard index < audio.frameCount, at <= audio.duration / 2 else { fatalError("frame \(index) at \(at) s for \(audio.duration / 2) s") }
    var framer = ADTSFramer(audio, from: index)
    guard framer.startOffset >= 0, framer.startOffset <= Int64(size) else { fatalError("frames start at \(framer.startOffset) of \(size)") }
    var written = 0
    var position = Int(framer.startOffset)
    while position < size, !framer.finished {
        let end = min(size, position + 997)
        written += framer.take(bytes[position..<end]).count
        position = end
    }
    // Every frame's bytes lie inside the file, so what was written is at most the file's bytes and their headers.
    guard written <= (size + 7 * (audio.frameCount + 1)) else { fatalError("\(written) bytes of ADTS from \(size)") }
    return 0
}
