import Feeds
import Foundation
import Testing

/// Feeds as hosts really publish them, one fixture of our own per kind of damage
/// (Fixtures/repairs/<kind>.xml), each read as feedparser would and the repair named.
@Suite("A liberal feed reader: each kind of broken feed is read with its repair named; what cannot be read is still refused")
struct FeedRepairTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/repairs")

    static func feed(_ name: String) throws -> ParsedFeed {
        try FeedParser.parse(try Data(contentsOf: folder.appendingPathComponent(name + ".xml")))
    }

    @Test("each kind: the show, its episode and its audio read as written, and the one repair it needed named",
          arguments: [
              ("leading-text", "Night Lights", "Owls", "https://cdn.example.org/a.mp3", FeedRepair.leadingText),
              ("bare-ampersand", "Tom & Jerry's Bedtime", "Salt & Pepper, A&B", "https://cdn.example.org/a.mp3", .bareAmpersands),
              ("nul-bytes", "Night Lights", "Owls", "https://cdn.example.org/a.mp3", .nulBytes),
              ("default-namespace", "Night Lights", "Owls", "https://cdn.example.org/a.mp3", .rootNamespace),
              ("windows-1251", "Ночные огни", "Совы", "https://cdn.example.org/a.mp3", .encoding),
              // UTF-8 with one stray byte: that byte replaced, the rest read as UTF-8 still.
              ("utf-8-stray-byte", "Café Nights", "Owls", "https://cdn.example.org/a.mp3", .encoding),
              ("unclosed", "Night Lights", "Owls", "https://cdn.example.org/a.mp3", .unclosed),
              ("html-entities", "Café Nights", "Résumé — part one", "https://cdn.example.org/a.mp3", .htmlEntities),
              ("cdata-attribute", "Night Lights", "Owls", "https://cdn.example.org/a.mp3?x=1&y=2", .cdataInAttributes),
          ])
    func repaired(kind: String, show: String, episode: String, audio: String, repair: FeedRepair) throws {
        let feed = try Self.feed(kind)
        #expect(feed.title == show)
        #expect(feed.episodes.map(\.title) == [episode])
        #expect(feed.episodes.first?.enclosure?.url == audio)
        #expect(feed.repairs == [repair])
    }

    @Test("NUL bytes and other control characters wherever they are (a title, a CDATA description, a comment, an attribute): every episode is read, as feedparser reads them, without them")
    func controlsEverywhere() throws {
        let feed = try Self.feed("nul-bytes-everywhere")
        #expect(feed.title == "Night Creatures")
        #expect(feed.episodes.map(\.title) == ["Owls", "Foxes", "Moths", "Bats", "Stars"])
        #expect(feed.episodes.map { $0.enclosure?.url } == (1...5).map { "https://cdn.example.org/\($0).mp3" })
        #expect(feed.episodes[3].description?.contains("Echoes in caves") == true, "\(feed.episodes[3].description ?? "none")")
        #expect(feed.repairs == [.nulBytes, .controlCharacters])
        // A UTF-16 feed without a byte-order mark has a zero in every ASCII character: it is read
        // by its declaration, never stripped of them.
        let wide = try #require("""
        <?xml version="1.0" encoding="UTF-16LE"?><rss version="2.0"><channel><title>Wide</title><item><title>Owls</title><guid>1</guid></item></channel></rss>
        """.data(using: .utf16LittleEndian))
        #expect(try FeedParser.parse(wide).episodes.map(\.title) == ["Owls"])
    }

    @Test("a well-formed feed needs no repair, a declared windows-1251 is read by its declaration, and a feed with nothing to listen to is still refused with its reason")
    func unrepaired() throws {
        #expect(try Self.feed("windows-1251-declared").repairs.isEmpty)
        #expect(try Self.feed("windows-1251-declared").episodes.map(\.title) == ["Совы"])
        #expect(try Self.feed("untitled-episode").repairs.isEmpty)
        // No title in the feed: none in the data ("Untitled episode" is the screens' word).
        #expect(try Self.feed("untitled-episode").episodes.map(\.title) == [nil])
        #expect(throws: FeedError.noEpisodes) { try Self.feed("no-usable-items") }
        // Entities are refused before any repair, however broken the rest is.
        let bomb = Data("""
        <?xml version="1.0"?>
        <!DOCTYPE rss [<!ENTITY lol "lol">]>
        <rss version="2.0"><channel><title>A & B</title><item><title>&lol;</title></item></channel></rss>
        """.utf8)
        #expect(throws: FeedError.entitiesRefused) { try FeedParser.parse(bomb) }
        // Ampersands inside CDATA are text as they are, never escaped twice.
        let cdata = try FeedParser.parse(Data("""
        <rss version="2.0"><channel><title>A & B</title><item><title><![CDATA[Fish &amp; Chips & Peas]]></title><guid>1</guid></item></channel></rss>
        """.utf8))
        #expect(cdata.title == "A & B" && cdata.episodes.map(\.title) == ["Fish &amp; Chips & Peas"] && cdata.repairs == [.bareAmpersands])
    }
}
