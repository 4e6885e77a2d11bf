import Feeds
import Foundation
import Testing

@Suite("Podcast chapters JSON and transcripts in WebVTT, SRT, JSON and HTML")
struct ChaptersAndTranscriptsTests {
    @Test("chapters: in time order, relative links resolved, times as numbers or strings, silent chapters kept apart, nonsense skipped")
    func chapters() throws {
        let json = """
        {"version": "1.2.0", "chapters": [
          {"startTime": 95.5, "title": "The Owls", "img": "img/owl.jpg", "url": "https://owls.example/"},
          {"startTime": 0, "endTime": 95.5, "title": "  Welcome\\n back "},
          {"startTime": "3:10", "title": "Art only", "toc": false},
          {"title": "no start, skipped"},
          {"startTime": -4, "title": "negative, skipped"},
          {"startTime": 120, "endTime": 100, "title": "an end before its start"}
        ]}
        """
        let chapters = try PodcastChapters.parse(Data(json.utf8), url: URL(string: "https://cdn.example/night/2/chapters.json"))
        #expect(chapters.map(\.title) == ["Welcome back", "The Owls", "an end before its start", "Art only"])
        #expect(chapters.map(\.start) == [0, 95.5, 120, 190])
        #expect(chapters[0].end == 95.5 && chapters[2].end == nil)
        #expect(chapters[1].image == "https://cdn.example/night/2/img/owl.jpg" && chapters[1].url == "https://owls.example/")
        #expect(chapters[3].inTableOfContents == false && chapters[0].inTableOfContents)
        #expect(throws: FeedError.self) { try PodcastChapters.parse(Data("[1, 2]".utf8)) }
        #expect(throws: FeedError.self) { try PodcastChapters.parse(Data("{\"version\": 1}".utf8)) }
        #expect(throws: FeedError.self) { try PodcastChapters.parse(Data("not json".utf8)) }
    }

    @Test("WebVTT: hours optional, voices give speakers, tags and NOTE blocks go, cue settings ignored")
    func vtt() throws {
        let text = """
        WEBVTT - Night Lights 2

        NOTE written by hand

        intro
        00:00.000 --> 00:04.500 align:start
        <v Ann Host>Good evening, and <i>welcome</i>.</v>

        00:00:04.500 --> 00:00:09.000
        <v.loud Bo>Thanks &amp; hello.
        Second line.

        01:00:00.000 --> 01:00:02.000
        The end.
        """
        let cues = try Transcripts.parse(Data(text.utf8), format: .vtt)
        #expect(cues == [ParsedCue(start: 0, end: 4.5, speaker: "Ann Host", text: "Good evening, and welcome."),
                         ParsedCue(start: 4.5, end: 9, speaker: "Bo", text: "Thanks & hello. Second line."),
                         ParsedCue(start: 3600, end: 3602, speaker: nil, text: "The end.")])
        #expect(throws: FeedError.self) { try Transcripts.parse(Data("00:00.000 --> 00:01.000\nno header".utf8), format: .vtt) }
        #expect(Transcripts.format(type: nil, data: Data(text.utf8)) == .vtt)
    }

    @Test("SRT: comma decimals, numbered blocks, Windows line ends")
    func srt() throws {
        let text = "1\r\n00:00:01,250 --> 00:00:03,000\r\nFirst words\r\n\r\n2\r\n00:00:03,000 --> 00:00:05,500\r\n<b>Second</b> words\r\n"
        let cues = try Transcripts.parse(Data(text.utf8), format: .srt)
        #expect(cues == [ParsedCue(start: 1.25, end: 3, speaker: nil, text: "First words"), ParsedCue(start: 3, end: 5.5, speaker: nil, text: "Second words")])
        #expect(Transcripts.format(type: "application/x-subrip", data: Data()) == .srt && Transcripts.format(type: "text/plain", data: Data(text.utf8)) == .srt)
    }

    @Test("JSON segments and the HTML form")
    func jsonAndHTML() throws {
        let json = #"{"version":"1.0.0","segments":[{"speaker":"Ann","startTime":2.5,"endTime":4,"body":"Later."},{"speaker":"Ann","startTime":0,"endTime":2.5,"body":"First."},{"startTime":5,"body":"  "}]}"#
        #expect(try Transcripts.parse(Data(json.utf8), format: .json) == [
            ParsedCue(start: 0, end: 2.5, speaker: "Ann", text: "First."), ParsedCue(start: 2.5, end: 4, speaker: "Ann", text: "Later.")])
        let html = """
        <html><body><cite>Ann:</cite><time>0:00</time><p>Hello there.</p>
        <cite>Bo:</cite><time>0:07</time><p>Hi <em>Ann</em>.</p><p>Still Bo.</p></body></html>
        """
        #expect(try Transcripts.parse(Data(html.utf8), format: .html) == [
            ParsedCue(start: 0, end: nil, speaker: "Ann", text: "Hello there."), ParsedCue(start: 7, end: nil, speaker: "Bo", text: "Hi Ann."),
            ParsedCue(start: 7, end: nil, speaker: "Bo", text: "Still Bo.")])
        #expect(throws: FeedError.self) { try Transcripts.parse(Data("{}".utf8), format: .json) }
    }
}

@Suite("Plain text from what services send")
struct PlainTextTests {
    @Test("tags go (a block's edge is a space, an inline tag nothing), entities are read, whitespace runs become one space")
    func fromHTML() {
        #expect(PlainText.fromHTML("<p>A <b>calm</b>\n  book.</p><p>Second&nbsp;part &amp; more</p>") == "A calm book. Second part & more")
        #expect(PlainText.fromHTML("It&#39;s &#x2019;here&#8217; &unknown; & alone; &#xZZ;") == "It's ’here’ &unknown; & alone; &#xZZ;")
        #expect(PlainText.fromHTML("Line<br/>break<BR>again") == "Line break again")
        #expect(PlainText.line("  Night\n\tLights  ") == "Night Lights")
    }
}
