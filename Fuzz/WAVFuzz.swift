// libFuzzer harness: the WAV reader (`AudioRender`) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAV(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let buffer = try? WAVFile.decode(Data(bytes: data, count: size)) else { return 0 }
    // What it reads can be written and read back.
    _ = try? WAVFile.decode(WAVFile.encode(buffer))
    return 0
}
