// libFuzzer harness: the MP3 reader and its ID3v1/ID3v2 tags (`MediaFormats`) over arbitrary bytes,
// and the same bytes as the head of an MP3 on another server (`MP3Head`, a joined stream's part).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMP3(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    if let media = try? MP3Reader.parse(MemoryByteSource(bytes)),
       !(media.duration >= 0) || media.chapters.contains(where: { $0.end < $0.start }) {
        fatalError("impossible result: \(media.duration) s, \(media.chapters)")
    }
    // A head of a file said to be longer (by its first byte's worth of 4 KiB blocks).
    let total = Int64(size) + Int64(bytes.first ?? 0) * 4096
    if let head = try? MP3Head.read(bytes, size: total) {
        guard head.duration.isFinite, head.duration >= 0, head.audioStart >= 0 else { fatalError("impossible head: \(head)") }
        for second in [0, head.duration / 2, head.duration, head.duration + 60] {
            let (offset, at) = head.byte(before: second)
            guard offset >= head.audioStart, offset < total || offset == head.audioStart, at >= 0, at <= max(second, 0) else {
                fatalError("second \(second) of \(head) is at byte \(offset) (\(at) s)")
            }
        }
    }
    return 0
}
