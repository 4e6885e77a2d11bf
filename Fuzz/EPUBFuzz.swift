// libFuzzer harness: EPUB books (`Reader.EPUB` over `SafeArchive`: its own reading of the
// archive, the container, package and NCX through the XML reader, the nav document and the pages
// through the HTML parser) over arbitrary bytes written as a file. Nothing may crash, no more
// bytes may come out of the archive than its limit, and what is read must hold together
// (ArticleChecks).
import Foundation

let fuzzFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-epub-fuzz-\(getpid()).epub")

/// The book read, waited for (the harness's thread is not one of Swift's cooperative threads).
final class Outcome: @unchecked Sendable { var article: ExtractedArticle? }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEPUB(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard (try? bytes.write(to: fuzzFile)) != nil else { return 0 }
    let limits = SafeArchive.Limits(maxEntries: 200, maxRatio: 200, maxBytes: 4 << 20)
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        outcome.article = try? await EPUB.read(fuzzFile, name: "fuzz.epub", limits: limits)
        done.signal()
    }
    done.wait()
    if let article = outcome.article { checkArticle(article) }
    return 0
}
