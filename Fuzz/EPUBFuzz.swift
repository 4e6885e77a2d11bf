// libFuzzer harness: EPUB books (`Reader.EPUB` over `SafeArchive`: ZIPFoundation's reading of the
// archive, the container, package and NCX through the XML reader, the nav document and the pages
// through the HTML parser) over arbitrary bytes written as a file. Nothing may crash; what is read
// must hold together: chapters cover the text end to end, spans lie inside it, and no more bytes
// come out of the archive than its limit.
import Foundation

let fuzzFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-epub-fuzz-\(getpid()).epub")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEPUB(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard (try? bytes.write(to: fuzzFile)) != nil else { return 0 }
    let limits = SafeArchive.Limits(maxEntries: 200, maxRatio: 200, maxBytes: 4 << 20)
    guard let article = try? EPUB.read(fuzzFile, name: "fuzz.epub", limits: limits) else { return 0 }
    let length = article.text.utf16.count
    for span in article.spans where span.location < 0 || span.length <= 0 || span.location + span.length > length {
        fatalError("span \(span) outside text of \(length)")
    }
    var end = 0
    for chapter in article.chapters {
        if chapter.location != end { fatalError("chapters leave a gap at \(end): \(article.chapters)") }
        end = chapter.location + chapter.length
    }
    if end != length { fatalError("chapters end at \(end), text at \(length)") }
    return 0
}
