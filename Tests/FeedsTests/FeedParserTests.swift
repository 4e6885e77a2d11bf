import Feeds
import Foundation
import Testing

/// Feeds written for these tests, one per namespace feature and per real-world quirk the parser handles.
@Suite("Feeds: RSS and Atom with the iTunes and Podcast Index namespaces, the quirks of real feeds, and hostile XML")
struct FeedParserTests {
    static let base = URL(string: "https://shows.example.org/night/feed.xml")!

    func parse(_ text: String, url: URL? = base) throws -> ParsedFeed {
        try FeedParser.parse(Data(text.utf8), url: url)
    }

    @Test("an RSS podcast: the show, its episodes in feed order, iTunes fields and every Podcast Index element")
    func rssPodcast() throws {
        let feed = try parse("""
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0"
             xmlns:content="http://purl.org/rss/1.0/modules/content/">
          <channel>
            <title>Night
              Lights</title>
            <link>https://shows.example.org/night/</link>
            <itunes:author>Ann Host</itunes:author>
            <itunes:image href="art/cover.jpg"/>
            <language>en-gb</language>
            <podcast:guid>917393e3-1b1e-5cef-ace4-edaa54e1f810</podcast:guid>
            <podcast:funding url="https://shows.example.org/support">Keep us on air</podcast:funding>
            <podcast:person role="host" img="ann.jpg">Ann Host</podcast:person>
            <item>
              <title>Episode 2: Owls</title>
              <guid isPermaLink="false">night-2</guid>
              <pubDate>Tue, 03 Jun 2025 09:39:21 GMT</pubDate>
              <itunes:duration>1:02:03</itunes:duration>
              <itunes:season>1</itunes:season><itunes:episode>2</itunes:episode><itunes:explicit>no</itunes:explicit>
              <enclosure url="https://cdn.example.org/night/2.mp3" type="audio/mpeg" length="29000000"/>
              <description>Short words.</description>
              <content:encoded><![CDATA[<p>Long <b>words</b>.</p>]]></content:encoded>
              <podcast:chapters url="/night/2/chapters.json" type="application/json+chapters"/>
              <podcast:transcript url="https://cdn.example.org/night/2.vtt" type="text/vtt" language="en"/>
              <podcast:transcript url="https://cdn.example.org/night/2.srt"/>
              <podcast:person role="guest" href="https://example.org/bo">Bo Guest</podcast:person>
            </item>
            <item>
              <title>Episode 1: Moths</title>
              <guid>night-1</guid>
              <pubDate>Mon, 02 Jun 2025 21:00:00 +0100</pubDate>
              <itunes:duration>3723</itunes:duration>
              <enclosure url="https://cdn.example.org/night/1.mp3" type="audio/mpeg" length="1000"/>
            </item>
          </channel>
        </rss>
        """)
        #expect(feed.format == .rss && feed.title == "Night Lights" && feed.author == "Ann Host" && feed.language == "en-gb")
        #expect(feed.link == "https://shows.example.org/night/" && feed.image == "https://shows.example.org/night/art/cover.jpg")
        #expect(feed.podcastGUID == "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        #expect(feed.funding == [ParsedFunding(url: "https://shows.example.org/support", text: "Keep us on air")])
        #expect(feed.persons == [ParsedPerson(name: "Ann Host", role: "host", href: nil, image: "https://shows.example.org/night/ann.jpg")])
        #expect(feed.episodes.map(\.guid) == ["night-2", "night-1"])
        let owls = feed.episodes[0]
        #expect(owls.title == "Episode 2: Owls" && owls.duration == 3723 && owls.season == 1 && owls.episode == 2 && owls.explicit == false)
        #expect(owls.published == Date(timeIntervalSince1970: 1_748_943_561))
        #expect(owls.enclosure == ParsedEnclosure(url: "https://cdn.example.org/night/2.mp3", type: "audio/mpeg", length: 29_000_000))
        #expect(owls.description == "<p>Long <b>words</b>.</p>")
        #expect(owls.chapters == "https://shows.example.org/night/2/chapters.json")
        #expect(owls.transcripts == [ParsedTranscriptLink(url: "https://cdn.example.org/night/2.vtt", type: "text/vtt", language: "en"),
                                     ParsedTranscriptLink(url: "https://cdn.example.org/night/2.srt", type: "application/x-subrip", language: nil)])
        #expect(owls.persons.map(\.name) == ["Bo Guest"] && owls.persons[0].role == "guest")
        #expect(feed.episodes[1].published == Date(timeIntervalSince1970: 1_748_894_400))
    }

    @Test("an Atom podcast: enclosure links, ids, published dates, xml:base")
    func atomPodcast() throws {
        let feed = try parse("""
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xml:base="https://atom.example.net/show/">
          <title>Atom Hour</title>
          <author><name>Cy Writer</name></author>
          <link rel="alternate" href="index.html"/>
          <link rel="self" href="feed.atom"/>
          <logo>logo.png</logo>
          <entry>
            <title>First</title>
            <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
            <published>2025-01-02T03:04:05.5+02:00</published>
            <link rel="enclosure" href="audio/first.m4a" type="audio/mp4" length="2048"/>
            <link href="first.html"/>
            <itunes:duration>45:00</itunes:duration>
            <summary>About the first.</summary>
          </entry>
        </feed>
        """, url: URL(string: "https://elsewhere.example.com/feed")!)
        #expect(feed.format == .atom && feed.title == "Atom Hour" && feed.author == "Cy Writer")
        #expect(feed.link == "https://atom.example.net/show/index.html" && feed.image == "https://atom.example.net/show/logo.png")
        let first = try #require(feed.episodes.first)
        #expect(first.guid == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a" && first.duration == 2700)
        #expect(first.enclosure == ParsedEnclosure(url: "https://atom.example.net/show/audio/first.m4a", type: "audio/mp4", length: 2048))
        #expect(first.link == "https://atom.example.net/show/first.html" && first.description == "About the first.")
        #expect(first.published == Date(timeIntervalSince1970: 1_735_779_845.5))
    }

    @Test("quirks of real feeds: no guid, length 0, two enclosures, spaces in URLs, the namespace over http, odd dates and durations")
    func quirks() throws {
        let feed = try parse("""
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/DTDs/Podcast-1.0.dtd" xmlns:podcast="http://podcastindex.org/namespace/1.0">
          <channel>
            <title>Quirky</title>
            <image><url>/img/logo.png</url></image>
            <item>
              <title>No guid</title>
              <pubDate>03 Jun 25 10:00 EDT</pubDate>
              <itunes:duration>62:03</itunes:duration>
              <enclosure url="https://cdn.example.org/a b.mp4" type="video/mp4" length="0"/>
              <enclosure url="https://cdn.example.org/a b.mp3" type="audio/mpeg" length=""/>
              <podcast:chapters url="https://cdn.example.org/c.json"/>
            </item>
            <item>
              <title>ISO date in pubDate</title>
              <guid>iso</guid>
              <pubDate>2025-06-03 10:00:00</pubDate>
              <itunes:duration>TBD</itunes:duration>
            </item>
            <item><description>neither a title nor an enclosure: skipped</description></item>
            <item>
              <title>Full month, no weekday</title>
              <guid>month</guid>
              <pubDate>3 June 2025 10:00:00 -0400</pubDate>
              <link>javascript:alert(1)</link>
            </item>
          </channel>
        </rss>
        """)
        #expect(feed.image == "https://shows.example.org/img/logo.png")
        #expect(feed.episodes.map(\.title) == ["No guid", "ISO date in pubDate", "Full month, no weekday"])
        let first = feed.episodes[0]
        #expect(first.enclosure == ParsedEnclosure(url: "https://cdn.example.org/a%20b.mp3", type: "audio/mpeg", length: nil))
        #expect(first.guid == "https://cdn.example.org/a%20b.mp3" && first.duration == 3723 && first.chapters == "https://cdn.example.org/c.json")
        let tenEastern = Date(timeIntervalSince1970: 1_748_959_200)
        #expect(first.published == tenEastern)
        #expect(feed.episodes[1].published == Date(timeIntervalSince1970: 1_748_944_800) && feed.episodes[1].duration == nil)
        #expect(feed.episodes[2].published == tenEastern && feed.episodes[2].link == nil)
    }

    @Test("RSS 1.0 (RDF) feeds: items beside the channel")
    func rdf() throws {
        let feed = try parse("""
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel rdf:about="https://old.example.org/"><title>Old Style</title><link>https://old.example.org/</link></channel>
          <item rdf:about="https://old.example.org/1"><title>One</title><link>https://old.example.org/1</link><dc:date>2004-05-06T07:08:09Z</dc:date></item>
        </rdf:RDF>
        """)
        #expect(feed.title == "Old Style" && feed.episodes.map(\.title) == ["One"])
        #expect(feed.episodes[0].guid == "https://old.example.org/1" && feed.episodes[0].published == Date(timeIntervalSince1970: 1_083_827_289))
    }

    @Test("hostile and broken XML: external entities, billion laughs, a wrong root, deep nesting, garbage: clear errors, never a crash")
    func hostile() throws {
        let xxe = """
        <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
        <rss><channel><title>&secret;</title></channel></rss>
        """
        #expect(throws: FeedError.entitiesRefused) { try parse(xxe) }
        var laughs = "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        for level in 1...9 { laughs += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level == 1 ? "" : String(level - 1));", count: 10) + "\">" }
        laughs += "]><rss><channel><title>&lol9;</title></channel></rss>"
        #expect(throws: FeedError.entitiesRefused) { try parse(laughs) }
        #expect(throws: FeedError.notAFeed("html")) { try parse("<html><body>Not a feed</body></html>") }
        let deep = String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
        #expect(throws: FeedError.self) { try parse("<rss><channel>" + deep + "</channel></rss>") }
        #expect(throws: FeedError.self) { try parse("<rss><channel><title>open") }
        #expect(throws: FeedError.self) { try parse("") }
        #expect(throws: FeedError.self) { try FeedParser.parse(Data([0xFF, 0xFE, 0x00, 0x01, 0x9C])) }
        #expect(FeedError.entitiesRefused.description.contains("never expands"))
    }

    @Test("dates as feeds write them", arguments: [
        ("Tue, 03 Jun 2008 11:05:30 GMT", 1_212_491_130.0), ("03 Jun 2008 11:05:30 +0000", 1_212_491_130), ("Tue, 3 Jun 08 11:05 GMT", 1_212_491_100),
        ("Tue, 03 Jun 2008 07:05:30 EDT", 1_212_491_130), ("Tue, 03 Jun 2008 04:05:30 PDT", 1_212_491_130), ("Tue, 03 Jun 2008 13:05:30 +02:00", 1_212_491_130),
        ("Tuesday, June 3, 2008 11:05:30 UT", 1_212_491_130), ("Jun 03 2008 11:05:30 Z", 1_212_491_130), ("2008-06-03T11:05:30Z", 1_212_491_130),
        ("2008-06-03T13:05:30+02:00", 1_212_491_130), ("2008-06-03", 1_212_451_200), ("Tue, 03 Jun 2008", 1_212_451_200),
    ])
    func dates(text: String, seconds: Double) {
        #expect(FeedDates.parse(text) == Date(timeIntervalSince1970: seconds), "\(text)")
    }

    @Test("dates read by arithmetic agree with Foundation's calendar over 3,000 random moments from 1901 to 2099, in RFC 822 and ISO 8601, leap days too")
    func datesAgreeWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        let rfc = DateFormatter()
        rfc.locale = Locale(identifier: "en_US_POSIX")
        rfc.timeZone = TimeZone(identifier: "UTC")
        rfc.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let iso = ISO8601DateFormatter()
        let zones = [0, 3600, -18_000, 19_800, -34_200]
        for index in 0..<3000 {
            let moment = Date(timeIntervalSince1970: Double(Int.random(in: -2_177_452_800...4_102_444_799, using: &generator)))
            rfc.timeZone = TimeZone(secondsFromGMT: zones[index % zones.count])
            iso.timeZone = TimeZone(secondsFromGMT: zones[(index + 1) % zones.count])
            #expect(FeedDates.parse(rfc.string(from: moment)) == moment, "\(rfc.string(from: moment))")
            #expect(FeedDates.parse(iso.string(from: moment)) == moment, "\(iso.string(from: moment))")
        }
        #expect(FeedDates.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(FeedDates.parse("Thu, 29 Feb 1900 00:00:00 GMT") == nil && FeedDates.parse("2023-02-29") == nil)
        #expect(FeedDates.parse("2008-06-03T11:05:30.250Z") == Date(timeIntervalSince1970: 1_212_491_130.25))
    }

    @Test("what is not a date or a duration is nil")
    func nonsense() {
        for text in ["", "yesterday", "32 Jun 2008", "Tue, 03 Foo 2008 11:05:30 GMT", "03 Jun 2008 25:00:00 GMT"] {
            #expect(FeedDates.parse(text) == nil, "\(text)")
        }
        #expect(FeedDates.duration("1:02:03") == 3723 && FeedDates.duration("62:03") == 3723 && FeedDates.duration("3723.5") == 3723.5)
        for text in ["", "TBD", "1:-2", "::", "-5", "1:2:3:4"] { #expect(FeedDates.duration(text) == nil, "\(text)") }
    }
}
