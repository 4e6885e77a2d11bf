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
    // As a remote M4A is read: its first 8 bytes are the size its server claims (at least the bytes
    // there are), the rest its first bytes; its movie found from them, then its frames from the middle.
    guard bytes.count > 8 else { return 0 }
    let head = Array(bytes.dropFirst(8))
    let claimed = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) } & Int64.max
    let fileSize = max(Int64(head.count), claimed)
    guard case .movie(let range)? = try? MP4Audio.findMovie(in: Array(head.prefix(4_096)), at: 0, size: fileSize),
          range.upperBound <= Int64(head.count),
          let audio = try? MP4Audio.read(movie: Array(head[Int(range.lowerBound)..<Int(range.upperBound)]), size: fileSize) else { return 0 }
    let (index, at) = audio.frame(before: audio.duration / 2)
    guard index < audio.frameCount, at <= audio.duration / 2 else { fatalError("frame \(index) at \(at) s for \(audio.duration / 2) s") }
    var framer = ADTSFramer(audio, from: index)
    guard framer.startOffset >= 0, framer.startOffset <= fileSize else { fatalError("frames start at \(framer.startOffset) of \(fileSize)") }
    var written = 0
    var position = Int(min(framer.startOffset, Int64(head.count)))
    while position < head.count, !framer.finished {
        let end = min(head.count, position + 997)
        written += framer.take(head[position..<end]).count
        position = end
    }
    // Every frame's bytes lie inside the file, so what was written is at most its bytes and their headers.
    guard written <= head.count + 7 * (audio.frameCount + 1) else { fatalError("\(written) bytes of ADTS from \(head.count)") }
    return 0
}
