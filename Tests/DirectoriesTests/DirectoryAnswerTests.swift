import Directories
import Foundation
import ReverieAPI
import Testing

@Suite("The directories' answers read as a person finds them: podcasts, stations and books the app can use, and nothing it cannot")
struct DirectoryAnswerTests {
    static func json(_ text: String) -> Data { Data(text.utf8) }

    @Test("iTunes: a show without a feed is left out, a name is one line, an address that is not http(s) is dropped")
    func itunes() throws {
        let found = try PodcastDirectoryAnswer.itunes(Self.json("""
            {"resultCount":3,"results":[
              {"collectionName":"Tide  Tables\\n","artistName":"Harbour Radio","feedUrl":"https://feeds.example/tide.xml","artworkUrl600":"https://img.example/t.jpg","trackCount":120},
              {"trackName":"Apple only","artistName":"Nobody"},
              {"collectionName":"Moths","feedUrl":"javascript:alert(1)"},
              {"trackName":"Owls","feedUrl":"http://owls.example/rss","artworkUrl100":"data:image/png;base64,AAAA"}]}
            """))
        #expect(found.map(\.title) == ["Tide Tables", "Owls"])
        #expect(found[0] == PodcastFound(title: "Tide Tables", author: "Harbour Radio", feedURL: "https://feeds.example/tide.xml",
                                         artwork: "https://img.example/t.jpg", episodeCount: 120, source: "itunes"))
        #expect(found[1].artwork == nil)
        #expect(throws: DecodingError.self) { try PodcastDirectoryAnswer.itunes(Self.json(#"{"errorMessage":"Invalid value(s) for key(s): [mediaType]"}"#)) }
    }

    @Test("Podcast Index: an empty author is none, the artwork falls back to the image, no feeds is an empty list")
    func podcastIndex() throws {
        let found = try PodcastDirectoryAnswer.podcastIndex(Self.json("""
            {"status":"true","feeds":[{"title":"Moth Hour","author":"","url":"http://moths.example/rss","image":"http://moths.example/a.png","episodeCount":7},
                                      {"title":"No feed","url":""}]}
            """))
        #expect(found == [PodcastFound(title: "Moth Hour", author: nil, feedURL: "http://moths.example/rss", artwork: "http://moths.example/a.png",
                                       episodeCount: 7, source: "podcastindex")])
        #expect(try PodcastDirectoryAnswer.podcastIndex(Self.json(#"{"status":"true","count":0}"#)).isEmpty)
    }

    @Test("radio-browser: a station without a UUID or a playable address is left out; ids lower case, at most 8 tags, no bitrate below 1")
    func stations() throws {
        let stations = try RadioBrowserAnswer.stations(Self.json("""
            [{"stationuuid":"9617A958-0601-11E8-AE97-52543BE04C81","name":"  Sea   FM ","url":"http://sea.example/listen.pls","url_resolved":"http://sea.example:8000/stream",
              "favicon":"","country":"","tags":"ambient, ,night,a,b,c,d,e,f,g","codec":"MP3","bitrate":0,"hls":0,"votes":10},
             {"stationuuid":"not-a-uuid","name":"Broken","url":"http://x.example/"},
             {"stationuuid":"6b1c2d3e-0000-4000-8000-000000000001","name":"Local file","url":"file:///etc/passwd","url_resolved":""},
             {"stationuuid":"6b1c2d3e-0000-4000-8000-000000000002","url_resolved":"https://hls.example/live.m3u8","hls":1}]
            """))
        #expect(stations.map(\.id) == ["9617a958-0601-11e8-ae97-52543be04c81", "6b1c2d3e-0000-4000-8000-000000000002"])
        let sea = stations[0]
        #expect(sea.name == "Sea FM" && sea.url == "http://sea.example/listen.pls" && sea.urlResolved == "http://sea.example:8000/stream")
        #expect(sea.tags == ["ambient", "night", "a", "b", "c", "d", "e", "f"] && sea.bitrate == nil && sea.favicon == nil && sea.country == nil)
        #expect(stations[1].name == "Unnamed station" && stations[1].hls && stations[1].url == "https://hls.example/live.m3u8")
    }

    @Test("radio-browser's server list: each host once, never one with a path or a user part")
    func servers() throws {
        let servers = try RadioBrowserAnswer.servers(Self.json("""
            [{"name":"de1.api.radio-browser.info"},{"name":"de1.api.radio-browser.info"},{"name":"evil.example/path"},{"name":"user@host.example"},
             {"name":""},{"name":null},{"ip":"1.2.3.4"},{"name":"nl1.api.radio-browser.info"}]
            """), scheme: "https")
        #expect(servers.map(\.absoluteString) == ["https://de1.api.radio-browser.info", "https://nl1.api.radio-browser.info"])
    }

    @Test("LibriVox: numbers as text or numbers, unplayable sections and nonsense lengths left out, a cover that is not http(s) falls back, a book with an impossible id skipped")
    func librivox() throws {
        let books = try LibriVoxAnswer.books(Self.json("""
            {"books":[
              {"id":"47","title":"The <i>Sea</i> &amp; Stars","description":"<p>Read by volunteers.</p>","language":"English","totaltimesecs":0,
               "url_librivox":"https://librivox.example/sea","coverart_thumbnail":"javascript:void(0)","coverart_jpg":"https://archive.example/sea.jpg",
               "authors":[{"first_name":"Ann","last_name":"Author"},{"first_name":null,"last_name":""}],
               "sections":[{"section_number":"1","title":"Chapter 1","listen_url":"https://archive.example/sea_01.mp3","playtime":"120","readers":[{"display_name":"Reader One"}]},
                           {"section_number":2,"title":"Chapter 2","listen_url":"ftp://archive.example/sea_02.mp3","playtime":30},
                           {"title":null,"listen_url":"http://archive.example/sea_03.mp3","playtime":"1e300"},
                           {"listen_url":"http://archive.example/sea_04.mp3","playtime":-30}]},
              {"id":null,"title":"No id"},
              {"id":9e99,"title":"Impossible id"}]}
            """))
        #expect(books.count == 1)
        let book = try #require(books.first)
        #expect(book.id == 47 && book.title == "The Sea & Stars" && book.authors == ["Ann Author"] && book.description == "Read by volunteers.")
        #expect(book.coverURL == "https://archive.example/sea.jpg" && book.pageURL == "https://librivox.example/sea")
        #expect(book.sections.map(\.listenURL) == ["https://archive.example/sea_01.mp3", "http://archive.example/sea_03.mp3", "http://archive.example/sea_04.mp3"])
        #expect(book.sections.map(\.number) == [1, 3, 4])
        #expect(book.sections.map(\.seconds) == [120, 0, 0])
        // LibriVox's total is 0 (a book still being read): the sections' sum.
        #expect(book.seconds == 120)
        #expect(throws: DecodingError.self) { try LibriVoxAnswer.books(Self.json("<html>LibriVox is down</html>")) }
    }
}
