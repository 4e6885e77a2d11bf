import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("Listening progress and Wind Down API")
struct WindDownAPITests {
    struct Home: Decodable {
        struct Item: Decodable {
            struct Inner: Decodable { var id: String; var duration: Int }
            var item: Inner
            var progress: Double
            var position: Double?
            var comingSoon: Bool
        }
        struct Section: Decodable { var title: String; var color: String; var items: [Item] }
        var greeting: String
        var featured: Item?
        var continueListening: [Item]
        var sections: [Section]
    }

    func event(_ id: String, _ device: String, _ at: Date, _ position: Double, _ kind: String = "pause",
               item: String = "winddown:yoga_nidra_10min") -> ProgressEventInput {
        ProgressEventInput(id: id, item: item, device: device, at: at, position: position, kind: kind)
    }

    @Test("progress from two devices: retries count once, an offline phone's old events and a timer's 0:00 change nothing", arguments: TestDatabase.all)
    func progress(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let now = client.clock.now
            let laptop = ProgressEventsRequest(events: [event("l1", "laptop", now.addingTimeInterval(-600), 60, "play"), event("l2", "laptop", now.addingTimeInterval(-60), 360)])
            let first = try await client.send(.POST, "/api/progress/events", json: laptop, auth: .cookie(ada)).decode(ProgressEventsResponse.self)
            #expect(first.accepted == 2 && first.items == [ItemProgress(item: "winddown:yoga_nidra_10min", position: 360, at: now.addingTimeInterval(-60), device: "laptop", finished: false)])
            // The same upload again (a retry): nothing new.
            #expect(try await client.send(.POST, "/api/progress/events", json: laptop, auth: .cookie(ada)).decode(ProgressEventsResponse.self).accepted == 0)
            // Yesterday's events from a phone that was offline, and a timer that wrote 0:00.
            let late = ProgressEventsRequest(events: [event("p1", "phone", now.addingTimeInterval(-86_400), 500), event("p2", "phone", now.addingTimeInterval(-30), 0, "timer")])
            let after = try await client.send(.POST, "/api/progress/events", json: late, auth: .cookie(ada)).decode(ProgressEventsResponse.self)
            #expect(after.accepted == 2 && after.items.first?.position == 360 && after.items.first?.device == "laptop")
            // A device clock running a day ahead cannot win over later events: its future is the server's now.
            let ahead = ProgressEventsRequest(events: [event("f1", "tablet", now.addingTimeInterval(86_400), 90)])
            _ = try await client.send(.POST, "/api/progress/events", json: ahead, auth: .cookie(ada))
            client.clock.advance(by: 10)
            _ = try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [event("l3", "laptop", client.clock.now, 370)]), auth: .cookie(ada))
            let read = try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min", auth: .cookie(ada)).decode(ItemProgress.self)
            #expect(read.position == 370 && read.device == "laptop")
            // Each device hears of the other's place when they are more than two minutes apart.
            let phone = try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min?device=phone", auth: .cookie(ada)).decode(ItemProgress.self)
            #expect(phone.position == 370 && phone.devicePosition == 500 && phone.offer == "Continue from 6:10 (laptop)")
            let onLaptop = try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min?device=laptop", auth: .cookie(ada)).decode(ItemProgress.self)
            #expect(onLaptop.devicePosition == 370 && onLaptop.offer == nil)
            let newDevice = try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min?device=radio", auth: .cookie(ada)).decode(ItemProgress.self)
            #expect(newDevice.devicePosition == nil && newDevice.offer == nil && newDevice.position == 370)

            // Someone else's progress is theirs alone.
            let bea = try await client.addUser("bea", by: ada)
            let hers = try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min", auth: .cookie(bea)).decode(ItemProgress.self)
            #expect(hers.position == nil && hers.finished == false)
        }
    }

    @Test("the Wind Down screen: greeting in the person's time zone, featured, Continue Listening, sections in the seed's order", arguments: TestDatabase.all)
    func home(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let now = client.clock.now   // 08:00 UTC
            let empty = try await client.send(.GET, "/api/winddown", auth: .cookie(ada)).decode(Home.self)
            #expect(empty.greeting == "Wind Down" && empty.featured?.item.id == "yoga_nidra_10min" && empty.continueListening.isEmpty)
            #expect(empty.sections.map(\.title) == ["Yoga Nidra", "Sleep Stories", "Guided Meditation", "Breathing", "Sleep Hypnosis", "Affirmations"])
            #expect(empty.sections.map(\.items.count) == [3, 12, 4, 4, 3, 4])
            // Every item has audio on a fresh server: none is Coming Soon.
            #expect(empty.sections.allSatisfy { $0.items.allSatisfy { !$0.comingSoon } })
            let midnight = try await client.send(.GET, "/api/winddown?timeZone=America/Los_Angeles", auth: .cookie(ada)).decode(Home.self)
            #expect(midnight.greeting == "Ready for Sleep?")

            // Two begun, one finished: Continue Listening shows the two, the latest first.
            let events = [event("a", "phone", now.addingTimeInterval(-3_600), 150, item: "winddown:yoga_nidra_5min"),
                          event("b", "phone", now.addingTimeInterval(-60), 300, item: "winddown:yoga_nidra_10min"),
                          event("c", "phone", now.addingTimeInterval(-30), 480, "ended", item: "winddown:yoga_nidra_8min")]
            _ = try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: events), auth: .cookie(ada))
            let home = try await client.send(.GET, "/api/winddown", auth: .cookie(ada)).decode(Home.self)
            #expect(home.continueListening.map(\.item.id) == ["yoga_nidra_10min", "yoga_nidra_5min"])
            #expect(home.continueListening.map(\.progress) == [0.5, 0.5])
            #expect(home.sections[0].items.map(\.progress) == [0.5, 1, 0.5])
            let item = try await client.send(.GET, "/api/winddown/yoga_nidra_10min", auth: .cookie(ada)).decode(Home.Item.self)
            #expect(item.position == 300 && item.item.duration == 600)
        }
    }

    @Test("bad progress and Wind Down requests get a 400 or 404 that names what is wrong, and change nothing")
    func badInput() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let now = client.clock.now
            func post(_ events: [ProgressEventInput]) async throws -> TestClient.Reply {
                try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: events), auth: .cookie(ada))
            }
            let cases: [([ProgressEventInput], String)] = [
                ([], "events:"),
                ([event("1", "phone", now, 10, item: "winddown:no_such_item")], "item:"),
                ([event("1", "phone", now, 10, item: "podcasts:1")], "item:"),
                ([event("1", "phone", now, -1)], "position:"),
                ([event("1", "phone", now, 10, "rewind")], "kind:"),
                ([event("", "phone", now, 10)], "id:"),
                ([event("1", " ", now, 10)], "device:"),
                ([event("ok", "phone", now, 10), event("2", "phone", now, 10, "rewind")], "kind:"),
            ]
            for (events, field) in cases {
                let reply = try await post(events)
                #expect(reply.status == .badRequest && reply.error?.message.hasPrefix(field) == true, "\(field) \(reply.text)")
            }
            // Nothing from a refused upload was kept (its first event was fine).
            #expect(try await client.send(.GET, "/api/progress/winddown:yoga_nidra_10min", auth: .cookie(ada)).decode(ItemProgress.self).position == nil)
            #expect(try await client.send(.GET, "/api/progress/nothing", auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.GET, "/api/winddown/nothing", auth: .cookie(ada)).status == .notFound)
            #expect(try await client.send(.GET, "/api/winddown?timeZone=Mars/Olympus", auth: .cookie(ada)).error?.code == "invalid_time_zone")
            #expect(try await client.send(.GET, "/api/winddown").status == .unauthorized)
        }
    }
}
