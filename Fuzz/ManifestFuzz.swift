// libFuzzer harness: the meditation manifest reader and validator (`Breathing`) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let manifest = try? MeditationManifest.decode(Data(bytes: data, count: size)) else { return 0 }
    if manifest.problems().isEmpty {
        // A manifest the validator accepts must plan every variant without trapping.
        for session in manifest.sessions {
            for variant in session.variants { _ = variant.totalSeconds; _ = variant.phaseStarts }
        }
    }
    return 0
}
