// libFuzzer harness: the PDF text path (`Reader.Documents.pdf`) over arbitrary bytes. The PDF
// itself is parsed by poppler's `pdftotext` and `pdfinfo`, outside programs we do not fuzz here
// (a process for each input would starve the fuzzer); what this drives is everything Reverie does
// in-process: the `%PDF-` check of the file, the reading of pdftotext's pages (running headers,
// footers and page numbers dropped, lines joined into paragraphs, broken words mended, headings
// found) and of pdfinfo's title. The runner answers as the programs would: the input up to its
// first NUL byte is pdftotext's output, the rest pdfinfo's (a failing pdfinfo when there is no NUL).
// The article must hold together (ArticleChecks), with paragraphs of single-spaced words.
import Foundation

/// A file that starts as a PDF does (the programs never read it), removed when the fuzzer exits.
func scratch() -> URL { URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-pdf-fuzz-\(getpid()).pdf") }
let fuzzFile: URL = {
    try! Data("%PDF-1.4\n".utf8).write(to: scratch())
    atexit { try? FileManager.default.removeItem(at: scratch()) }
    return scratch()
}()

/// The article read, waited for (the harness's thread is not one of Swift's cooperative threads).
final class Outcome: @unchecked Sendable { var article: ExtractedArticle? }

/// Signals when the task lets it go: the harness waits for that, not only for the answer, so every
/// byte an input took (the runner holds the input) is given back before libFuzzer counts them.
final class Released: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.signal() }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPDF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let nul = bytes.firstIndex(of: 0)
    let text = nul.map { bytes[..<$0] } ?? bytes, info = nul.map { bytes[($0 + 1)...] }
    let runner = CommandRunner { executable, _, _ in
        switch executable {
        case "pdftotext": return .init(status: 0, output: Data(text), errors: Data())
        case "pdfinfo": return .init(status: info == nil ? 1 : 0, output: Data(info ?? Data()), errors: Data())
        default: fatalError("ran \(executable)")
        }
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task { [released = Released(done)] in
        outcome.article = try? await Documents.pdf(fuzzFile, name: "fuzz.pdf", runner: runner)
        _ = released
    }
    done.wait()
    guard let article = outcome.article else { return 0 }
    checkArticle(article)
    for paragraph in article.text.components(separatedBy: "\n\n") {
        guard !paragraph.isEmpty, !paragraph.contains("\n"), !paragraph.contains("  "), paragraph.first != " ", paragraph.last != " " else {
            fatalError("paragraph \(paragraph.debugDescription)")
        }
    }
    if article.title.isEmpty { fatalError("no title") }
    return 0
}
