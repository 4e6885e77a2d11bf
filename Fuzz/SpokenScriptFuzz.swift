// libFuzzer harness: the pause-marker script parser (`SpokenScript`) over arbitrary text.
// Built by scripts/fuzz.sh with the module's sources; see README "Fuzzing".
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSpokenScript(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let script = try? ScriptParser().parse(text) else { return 0 }
    // Whatever it reads must hold together: pauses are finite and not negative.
    for segment in script.segments {
        if case let .pause(pause) = segment, !(pause.seconds.isFinite && pause.seconds >= 0) {
            fatalError("pause of \(pause.seconds) s from \(text.debugDescription)")
        }
    }
    return 0
}
