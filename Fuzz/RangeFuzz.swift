// libFuzzer harness: the HTTP `Range` header (`MediaFormats.RangeHeader`), read on every player
// request, over arbitrary text and file sizes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRange(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    // The first 8 bytes are the file's size (any, 0 included), the rest the header.
    guard bytes.count >= 8 else { return 0 }
    let fileSize = Int(bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1)
    let header = String(decoding: bytes.dropFirst(8), as: UTF8.self)
    switch RangeHeader.read(header, size: fileSize) {
    case .part(let range):
        // A part is inside the file, first byte before last.
        guard range.lowerBound >= 0, range.upperBound < fileSize else { fatalError("\(range) of a file of \(fileSize) bytes from \(header.debugDescription)") }
    case .unsatisfiable, .whole:
        break
    }
    return 0
}
