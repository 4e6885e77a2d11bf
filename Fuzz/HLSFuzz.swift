// libFuzzer harness: the HLS playlist reader (`MediaFormats`, the radio relay's) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let playlist = try? HLSPlaylist.parse(Data(bytes: data, count: size)) else { return 0 }
    switch playlist {
    case let .master(variants):
        if variants.isEmpty || variants.contains(where: { ($0.bandwidth ?? 0) < 0 }) { fatalError("impossible variants: \(variants)") }
        _ = HLSPlaylist.preferred(variants)
    case let .media(media):
        if !(media.targetDuration >= 0) || media.segments.contains(where: { !($0.duration >= 0) || $0.sequence < 0 })
            || zip(media.segments, media.segments.dropFirst()).contains(where: { $0.sequence + 1 != $1.sequence }) {
            fatalError("impossible media playlist: \(media)")
        }
    }
    return 0
}
