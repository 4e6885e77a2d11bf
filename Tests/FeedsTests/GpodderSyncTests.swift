import Feeds
import Foundation
import Testing

@Suite("What podcast apps upload: episode actions, subscription changes and lists, read whole or refused with a reason")
struct GpodderSyncTests {
    @Test("gpodder's times read with or without a zone and fractions, and written without")
    func times() throws {
        let plain = try #require(GpodderSync.parse("2026-11-30T21:05:09"))
        #expect(plain.timeIntervalSince1970 == 1_796_072_709)
        #expect(GpodderSync.parse("2026-11-30T21:05:09Z") == plain)
        #expect(GpodderSync.parse("2026-11-30T21:05:09.750Z")?.timeIntervalSince1970 == 1_796_072_709.75)
        #expect(GpodderSync.parse("2026-11-30T22:05:09+01:00") == plain)
        #expect(GpodderSync.format(plain) == "2026-11-30T21:05:09")
        #expect(GpodderSync.parse("2024-02-29T00:00:00") != nil)
        for bad in ["", "yesterday", "2026-13-01T00:00:00", "2026-11-30", String(repeating: "9", count: 100)] {
            #expect(GpodderSync.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("a list of actions, or Nextcloud's object of them; play's seconds kept, -1 as not known, another action's dropped")
    func actions() throws {
        let body = """
            [{"podcast": "https://a.example/f", "episode": "https://a.example/1.mp3", "action": "PLAY", "device": "phone",
              "timestamp": "2026-11-30T21:00:00", "started": 10, "position": 95.6, "total": -1, "guid": "g1"},
             {"podcast": "https://a.example/f", "episode": "https://a.example/2.mp3", "action": "delete", "position": 3}]
            """
        let read = try GpodderSync.episodeActions(Data(body.utf8), device: "web")
        #expect(read.count == 2)
        #expect(read[0].action == .play && read[0].started == 10 && read[0].position == 95 && read[0].total == nil && read[0].guid == "g1")
        #expect(read[1].action == .delete && read[1].position == nil && read[1].device == "web" && read[1].timestamp == nil)
        // Kasts names no device with an empty one: the upload's own.
        let kasts = try GpodderSync.episodeActions(Data(#"[{"podcast": "p", "episode": "e", "action": "play", "device": "", "guid": "", "position": 5}]"#.utf8), device: "kasts")
        #expect(kasts[0].device == "kasts" && kasts[0].guid == nil && kasts[0].position == 5)
        let wrapped = try GpodderSync.episodeActions(Data(#"{"actions": [{"podcast": "p", "episode": "e", "action": "new"}]}"#.utf8))
        #expect(wrapped.map(\.action) == [.new])
        #expect(read[0].json["timestamp"] as? String == "2026-11-30T21:00:00" && read[1].json["position"] == nil)
    }

    @Test("a batch with one bad action, or past the limit, is refused whole, saying which and why")
    func refusals() {
        let cases: [(String, String)] = [
            (#"[{"podcast": "p", "episode": "e", "action": "play"}, {"podcast": "p", "action": "play"}]"#, "Action 2 has no episode."),
            (#"[{"podcast": "p", "episode": "e", "action": "skip"}]"#, "skip is not one of"),
            (#"[{"podcast": "p", "episode": "e", "action": "play", "position": 1e12}]"#, "between 0 and"),
            (#"[{"podcast": "p", "episode": "e", "action": "play", "device": "my phone"}]"#, "device id"),
            (#"[{"podcast": "p", "episode": "e", "action": "play", "timestamp": "soon"}]"#, "not an ISO 8601 time"),
            ("not json", "not JSON"),
            (#"{"add": []}"#, "Send a JSON list"),
        ]
        for (body, reason) in cases {
            #expect(throws: GpodderSync.Refusal.self, "\(body)") { try GpodderSync.episodeActions(Data(body.utf8)) }
            do { _ = try GpodderSync.episodeActions(Data(body.utf8)) } catch { #expect("\(error)".contains(reason), "\(error)") }
        }
        let many = "[" + Array(repeating: #"{"podcast": "p", "episode": "e", "action": "new"}"#, count: GpodderSync.maxBatch + 1).joined(separator: ",") + "]"
        #expect(throws: GpodderSync.Refusal.self) { try GpodderSync.episodeActions(Data(many.utf8)) }
    }

    @Test("subscription changes and whole lists in the simple API's three formats")
    func subscriptions() throws {
        let changes = try GpodderSync.subscriptionChanges(Data(#"{"add": ["https://a.example/f"], "remove": ["https://b.example/g"]}"#.utf8))
        #expect(changes.add == ["https://a.example/f"] && changes.remove == ["https://b.example/g"])
        #expect(throws: GpodderSync.Refusal.self) { try GpodderSync.subscriptionChanges(Data(#"{"add": ["x"], "remove": ["x"]}"#.utf8)) }
        #expect(throws: GpodderSync.Refusal.self) { try GpodderSync.subscriptionChanges(Data(#"{"add": [1]}"#.utf8)) }
        #expect(try GpodderSync.subscriptionList(Data("https://a.example/f\r\n\n http://b.example/g \n".utf8), format: "txt") == ["https://a.example/f", "http://b.example/g"])
        #expect(try GpodderSync.subscriptionList(Data(#"["https://a.example/f"]"#.utf8), format: "json") == ["https://a.example/f"])
        let opml = #"<opml version="2.0"><body><outline text="F" type="rss" xmlUrl="https://a.example/f"/></body></opml>"#
        #expect(try GpodderSync.subscriptionList(Data(opml.utf8), format: "opml") == ["https://a.example/f"])
        #expect(throws: GpodderSync.Refusal.self) { try GpodderSync.subscriptionList(Data("<!DOCTYPE x [<!ENTITY a 'b'>]><opml/>".utf8), format: "opml") }
        #expect(GpodderSync.cleanURL("feed://a.example/f") == "http://a.example/f" && GpodderSync.cleanURL("not an address") == nil)
        #expect(GpodderSync.isDeviceID("antennapod_pixel-7.a") && !GpodderSync.isDeviceID("") && !GpodderSync.isDeviceID("a/b"))
    }
}
