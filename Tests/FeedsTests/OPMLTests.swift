import Feeds
import Foundation
import Testing

@Suite("OPML: subscriptions read from other podcast apps' exports and written for them")
struct OPMLTests {
    @Test("feeds in folders, in document order, once each; titles from title or text; app schemes and relative URLs read as http(s)")
    func nestedAndQuirky() throws {
        let text = """
        <?xml version="1.0" encoding="utf-8"?>
        <opml version="1.0">
          <head><title>My casts</title></head>
          <body>
            <outline text="Sleep">
              <outline type="rss" text="Night &amp; Day" xmlUrl="https://a.example/feed.xml" htmlUrl="https://a.example/"/>
              <outline type="RSS" title="Owls" text="ignored" xmlURL="feed://b.example/owls.rss"/>
            </outline>
            <outline type="rss" text="Again" xmlUrl="https://a.example/feed.xml"/>
            <outline type="rss" url="relative/c.xml"/>
            <outline type="link" text="Not a feed" url="https://d.example/"/>
            <outline type="rss" text="Bad" xmlUrl="javascript:alert(1)"/>
            <outline type="rss" text="itpc" xmlUrl="itpc://e.example/pod"/>
          </body>
        </opml>
        """
        let outlines = try OPML.parse(Data(text.utf8), url: URL(string: "https://host.example/exports/subs.opml"))
        #expect(outlines == [
            OPMLOutline(title: "Night & Day", feedURL: "https://a.example/feed.xml", siteURL: "https://a.example/"),
            OPMLOutline(title: "Owls", feedURL: "http://b.example/owls.rss"),
            OPMLOutline(title: "https://host.example/exports/relative/c.xml", feedURL: "https://host.example/exports/relative/c.xml"),
            OPMLOutline(title: "itpc", feedURL: "http://e.example/pod"),
        ])
    }

    @Test("what Reverie writes, another app (and Reverie) reads back the same, with markup in titles escaped")
    func roundTrip() throws {
        let outlines = [
            OPMLOutline(title: "Tom & Jerry's <Late> \"Show\"", feedURL: "https://a.example/feed?x=1&y=2", siteURL: "https://a.example/"),
            OPMLOutline(title: "Ünïcode night 🌙", feedURL: "https://b.example/rss"),
        ]
        let written = OPML.export(outlines, created: Date(timeIntervalSince1970: 0))
        #expect(written.contains("<dateCreated>Thu, 01 Jan 1970 00:00:00 GMT</dateCreated>"))
        #expect(written.contains("&amp;y=2"))
        #expect(try OPML.parse(Data(written.utf8)) == outlines)
    }

    @Test("not OPML, hostile XML and an empty body say so or find nothing")
    func refusals() throws {
        #expect(throws: FeedError.notAFeed("rss")) { try OPML.parse(Data("<rss><channel/></rss>".utf8)) }
        let laughs = #"<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><opml><body><outline xmlUrl="https://x/&b;"/></body></opml>"#
        #expect(throws: FeedError.entitiesRefused) { try OPML.parse(Data(laughs.utf8)) }
        #expect(try OPML.parse(Data("<opml version='2.0'><head/></opml>".utf8)).isEmpty)
        #expect(throws: FeedError.self) { try OPML.parse(Data("<opml><body><outline".utf8)) }
    }
}
