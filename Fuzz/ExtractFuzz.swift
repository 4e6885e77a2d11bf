// libFuzzer harness: article extraction (`Reader`: libxml2's HTML parser, metadata, scoring, the
// rich text and its spans) over arbitrary bytes. What comes out must hold together (ArticleChecks).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExtract(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let article = try? Reader.extract(html: bytes, url: URL(string: "https://fuzz.example/a/page.html")) else { return 0 }
    checkArticle(article)
    return 0
}
