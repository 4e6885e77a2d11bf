// libFuzzer harness: what podcast apps upload in the gpodder API (`Feeds.GpodderSync`): episode
// actions, subscription changes and whole lists (JSON, text, OPML), and their times, over
// arbitrary bytes. Whatever is taken keeps every limit the server relies on.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGpodder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let actions = try? GpodderSync.episodeActions(bytes) {
        guard actions.count <= GpodderSync.maxBatch else { fatalError("a batch past the limit was taken") }
        for action in actions {
            guard GpodderSync.isDeviceID(action.device), !action.podcast.isEmpty, action.podcast.utf8.count <= GpodderSync.maxURLLength,
                  !action.episode.isEmpty, action.episode.utf8.count <= GpodderSync.maxURLLength else { fatalError("an action past the limits: \(action)") }
            for seconds in [action.started, action.position, action.total].compactMap({ $0 }) where !(0...GpodderSync.maxSeconds).contains(seconds) {
                fatalError("seconds out of range: \(seconds)")
            }
            if let time = action.timestamp, GpodderSync.parse(GpodderSync.format(time)) == nil { fatalError("a time that does not read back: \(time)") }
            _ = try? JSONSerialization.data(withJSONObject: action.json)
        }
    }
    if let changes = try? GpodderSync.subscriptionChanges(bytes), !Set(changes.add).isDisjoint(with: changes.remove) {
        fatalError("a feed both added and removed was taken")
    }
    for format in ["json", "txt", "opml"] {
        if let list = try? GpodderSync.subscriptionList(bytes, format: format), list.count > GpodderSync.maxBatch { fatalError("a list past the limit") }
    }
    if size <= 64, let text = String(data: bytes, encoding: .utf8), let time = GpodderSync.parse(text) {
        _ = GpodderSync.format(time)
        for url in [text] { _ = GpodderSync.cleanURL(url) }
    }
    return 0
}
