// libFuzzer harness: the JSON answers of the outside directories (`Directories`): iTunes and
// Podcast Index searches, radio-browser's stations and server list, LibriVox's catalog. The first
// byte picks the reader, the rest is the answer. Whatever the bytes, a reader returns or throws,
// and what it returns holds only what the app may use: http(s) addresses, lower-case station ids,
// bare server hosts, books with a title and playable sections.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDirectories(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let answer = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    func web(_ address: String?) -> Bool {
        guard let address else { return true }
        return address.hasPrefix("http://") || address.hasPrefix("https://")
    }
    switch data[0] % 5 {
    case 0, 1:
        guard let found = try? (data[0] % 5 == 0 ? PodcastDirectoryAnswer.itunes(answer) : PodcastDirectoryAnswer.podcastIndex(answer)) else { return 0 }
        for podcast in found where !web(podcast.feedURL) || !web(podcast.artwork) {
            fatalError("a podcast found with an address that is not http(s): \(podcast)")
        }
    case 2:
        guard let stations = try? RadioBrowserAnswer.stations(answer) else { return 0 }
        for station in stations {
            guard UUID(uuidString: station.id) != nil, station.id == station.id.lowercased(), web(station.urlResolved), web(station.url),
                  web(station.favicon), web(station.homepage), station.tags.count <= 8 else {
                fatalError("a station the app cannot use: \(station)")
            }
        }
    case 3:
        guard let servers = try? RadioBrowserAnswer.servers(answer, scheme: "https") else { return 0 }
        for server in servers {
            guard let host = server.host, !host.isEmpty, server.path.isEmpty || server.path == "/", server.user == nil else {
                fatalError("a server that is not a bare host: \(server)")
            }
        }
        if Set(servers).count != servers.count { fatalError("a server listed twice: \(servers)") }
    default:
        guard let books = try? LibriVoxAnswer.books(answer) else { return 0 }
        for book in books {
            guard !book.title.isEmpty, book.seconds >= 0, web(book.coverURL), web(book.pageURL) else { fatalError("a book the app cannot show: \(book)") }
            for section in book.sections where !web(section.listenURL) || section.seconds < 0 {
                fatalError("a section that cannot be played: \(section)")
            }
        }
    }
    return 0
}
