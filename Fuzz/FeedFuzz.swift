// libFuzzer harness: the feed parser (`Feeds`: libxml2 with entities refused, RSS/Atom/RDF, dates,
// durations, URLs) over arbitrary bytes.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeed(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let feed = try? FeedParser.parse(bytes, url: URL(string: "https://fuzz.example/feed")) else { return 0 }
    for episode in feed.episodes {
        if let duration = episode.duration, !(duration >= 0) { fatalError("negative duration \(duration)") }
        if let url = episode.enclosure?.url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) { fatalError("not an http(s) URL: \(url)") }
    }
    return 0
}
