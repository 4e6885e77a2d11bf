// libFuzzer harness: article extraction (`Reader`: libxml2's HTML parser, metadata, scoring, the
// rich text and its spans) over arbitrary bytes. Every span must lie inside the text, and the
// chapters must cover it exactly.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExtract(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let article = try? Reader.extract(html: bytes, url: URL(string: "https://fuzz.example/a/page.html")) else { return 0 }
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
    for span in article.spans where span.style == .link {
        guard let url = span.url, url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("mailto:") else { fatalError("link \(String(describing: span.url))") }
    }
    return 0
}
