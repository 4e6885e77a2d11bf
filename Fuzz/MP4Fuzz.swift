// libFuzzer harness: the MP4/M4A/M4B reader (`MediaFormats`) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP4(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let source = MemoryByteSource([UInt8](UnsafeBufferPointer(start: data, count: size)))
    // Straight to the MP4 reader, whatever the first box is, so every input reaches the box walker.
    guard let media = try? MP4Reader.parse(source) else { return 0 }
    // What it reads is well-formed: chapters in order, each ending at or after its start.
    for (chapter, next) in zip(media.chapters, media.chapters.dropFirst()) where chapter.start > next.start || chapter.end < chapter.start {
        fatalError("chapters out of order: \(media.chapters)")
    }
    return 0
}
