// libFuzzer harness: the OPML reader (`Feeds`: libxml2 with entities refused, nested outlines,
// app schemes) over arbitrary bytes, and what it reads written back and read again unchanged.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOPML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let outlines = try? OPML.parse(bytes, url: URL(string: "https://fuzz.example/subs.opml")) else { return 0 }
    for outline in outlines where !(outline.feedURL.hasPrefix("http://") || outline.feedURL.hasPrefix("https://")) {
        fatalError("not an http(s) URL: \(outline.feedURL)")
    }
    let again = try? OPML.parse(Data(OPML.export(outlines).utf8))
    if again?.map(\.feedURL) != outlines.map(\.feedURL) { fatalError("export did not read back: \(outlines) vs \(String(describing: again))") }
    return 0
}
