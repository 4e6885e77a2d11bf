// libFuzzer harness: the MP3 reader and its ID3v1/ID3v2 tags (`MediaFormats`) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP3(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let source = MemoryByteSource([UInt8](UnsafeBufferPointer(start: data, count: size)))
    guard let media = try? MP3Reader.parse(source) else { return 0 }
    if !(media.duration >= 0) || media.chapters.contains(where: { $0.end < $0.start }) {
        fatalError("impossible result: \(media.duration) s, \(media.chapters)")
    }
    return 0
}
