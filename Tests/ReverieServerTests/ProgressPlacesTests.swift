import FluentSQL
import Foundation
@testable import ReverieServer
import Playback
import ReverieAPI
import Testing
import Vapor

@Suite("Listening progress in constant time: each device's place kept beside the log, which stays the truth")
struct ProgressPlacesTests {
    @Test("5,000 events on one item, then the 5,001st: the kept places answer as the whole log does, and equal a rebuild from it",
          arguments: TestDatabase.all)
    func fiveThousand(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            _ = try await client.setUpOwner()
            let ada = try #require(try await FluentUserRepository(database: client.app.db).all().first)
            let user = AuthenticatedUser(id: ada.id, username: ada.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: Date())
            let progress = FluentProgressRepository(database: client.app.db)
            let book = "library:\(UUID().uuidString.lowercased())"
            let other = "\(book)/3"
            var generator = SystemRandomNumberGenerator()
            let base = client.clock.now.addingTimeInterval(-100_000)
            let kinds: [ProgressEvent.Kind] = [.play, .pause, .seek, .ended, .timer, .restart, .unplayed]
            // A long book's nights on three devices: few distinct instants, so ties are common,
            // and zeros that say nothing among them.
            var log: [String: [ProgressEvent]] = [book: [], other: []]
            for batch in 0..<10 {
                let events = (0..<500).map { index in
                    ProgressEvent(id: "e\(batch)-\(index)", device: ["phone", "laptop", "speaker"].randomElement(using: &generator)!,
                                  at: base.addingTimeInterval(Double(Int.random(in: 0...400, using: &generator))),
                                  position: [0, 0, 30, 60, 90.5, 1_200].randomElement(using: &generator)!,
                                  kind: kinds.randomElement(using: &generator)!)
                }
                let items = events.map { _ in Int.random(in: 0..<10, using: &generator) == 0 ? other : book }
                #expect(try await progress.append(events, items: items, ownedBy: user) == 500)
                for (event, item) in zip(events, items) { log[item]!.append(event) }
            }
            // A retry adds nothing and moves nothing.
            #expect(try await progress.append(Array(log[book]!.prefix(3)), items: [book, book, book], ownedBy: user) == 0)
            // The 5,001st, at the same instant as the latest so far: it arrived later, so it decides.
            let latest = try #require(log[book]!.map(\.at).max())
            let last = ProgressEvent(id: "last", device: "phone", at: latest, position: 4_242, kind: .pause)
            #expect(try await progress.append([last], items: [book], ownedBy: user) == 1)
            log[book]!.append(last)

            let kept = try await progress.places(of: [book, other], ownedBy: user)
            for (item, events) in log {
                let places = try #require(kept[item])
                #expect(ListeningProgress.position(places) == ListeningProgress.position(events), "\(item)")
                for device in ["phone", "laptop", "speaker"] {
                    #expect(places.first { $0.device == device } == ListeningProgress.deciding(events.filter { $0.device == device }), "\(item) \(device)")
                }
            }
            #expect(ListeningProgress.position(kept[book]!)?.position == 4_242)
            #expect(try await progress.deciding(prefixed: book, ownedBy: user) == kept.mapValues { ListeningProgress.deciding($0)! })
            // The whole log is still there, in the order it arrived.
            #expect(try await progress.events(of: [book], ownedBy: user)[book] == log[book])

            // Rebuilt from the log, the places are the same.
            let sql = try #require(client.app.db as? any SQLDatabase)
            try await FluentProgressRepository.rebuildPlaces(on: sql)
            let rebuilt = try await progress.places(of: [book, other], ownedBy: user)
            #expect(rebuilt.mapValues(Set.init) == kept.mapValues(Set.init))
        }
    }

    @Test("two events at the same device time: the later to arrive decides, in either order; a key with a slash is read as sent",
          arguments: TestDatabase.all)
    func equalTimes(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let chapter = "library:\(UUID().uuidString.lowercased())/0"
            let at = client.clock.now.addingTimeInterval(-60)
            func send(_ kind: String, _ position: Double) async throws {
                let input = ProgressEventInput(id: UUID().uuidString, item: chapter, device: "phone", at: at, position: position, kind: kind)
                let answer = try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [input]), auth: .cookie(owner))
                #expect(answer.status == .ok, "\(answer.text)")
            }
            func shown(_ path: String) async throws -> ItemProgress {
                let answer = try await client.send(.GET, path, auth: .cookie(owner))
                #expect(answer.status == .ok, "\(path): \(answer.text)")
                return try answer.decode(ItemProgress.self)
            }
            // Played, then marked unplayed in the same second: unplayed.
            try await send("ended", 300)
            try await send("unplayed", 0)
            var place = try await shown("/api/progress/\(chapter)")
            #expect(place.finished == false && place.position == 0)
            // And played again in that second: played.
            try await send("ended", 300)
            place = try await shown("/api/progress/\(chapter)")
            #expect(place.finished == true && place.position == 300)
            // The slash sent as %2F reads the same item.
            #expect(try await shown("/api/progress/\(chapter.replacingOccurrences(of: "/", with: "%2F"))") == place)
        }
    }
}
