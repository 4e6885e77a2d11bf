import Foundation
import ReverieAPI
import SQLKit
@testable import ReverieServer
import Testing
import Vapor

@Suite("Up Next and named lists: one queue on the server, the same on every device")
struct QueueAPITests {
    static func article(_ title: String, _ client: TestClient, _ cookie: String) async throws -> String {
        let saved = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(text: "\(title) begins.\n\nAnd then it ends.", title: title),
                                          auth: .cookie(cookie)).decode(ArticleSummary.self)
        return "article:\(saved.id)"
    }

    static func titles(_ queue: QueueInfo) -> [String] { queue.entries.map(\.title) }

    @Test("Add to Up Next goes last, Play Next second; a second device sees the same order; reorder, remove and Undo; stale orders are refused",
          arguments: TestDatabase.all)
    func upNext(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let phone = try await client.login("ada", "correct horse")
            let lists = try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self)
            #expect(lists.queues.map(\.name) == ["Up Next"] && lists.queues[0].main && lists.queues[0].entries.isEmpty)
            let upNext = lists.queues[0].id
            let tide = try await Self.article("Tide", client, ada), moss = try await Self.article("Moss", client, ada)
            let rain = try await Self.article("Rain", client, ada)
            func add(_ item: String, at: String? = nil, index: Int? = nil, cookie: String = ada) async throws -> TestClient.Reply {
                try await client.send(.POST, "/api/queues/\(upNext)/entries", json: QueueAddRequest(item: item, at: at, index: index), auth: .cookie(cookie))
            }
            #expect(try await add(tide).status == .created)
            #expect(try await add(moss, at: "end").status == .created)
            let next = try await add(rain, at: "next")
            #expect(next.status == .created)
            #expect(Self.titles(try next.decode(QueueInfo.self)) == ["Tide", "Rain", "Moss"], "Play Next puts the item second")
            // The phone, another session of the same person, sees the same queue.
            let seen = try await client.send(.GET, "/api/queues", auth: .cookie(phone)).decode(QueueList.self).queues[0]
            #expect(Self.titles(seen) == ["Tide", "Rain", "Moss"])
            #expect(seen.entries.map(\.kind) == ["article", "article", "article"] && seen.entries[0].detail == "Pasted text")
            // Items come back with their ids as the API gives them (small letters, as the player
            // finds the saved article and its download by): sent in capitals, the same item.
            #expect(seen.entries.map(\.item) == [tide, rain, moss])
            let shouted = "article:" + moss.dropFirst("article:".count).uppercased()
            // An item queued already moves rather than doubling.
            let moved = try await add(shouted, at: "next").decode(QueueInfo.self)
            #expect(Self.titles(moved) == ["Tide", "Moss", "Rain"] && moved.entries.map(\.item) == [tide, moss, rain])
            #expect(Self.titles(try await add(tide, at: "end").decode(QueueInfo.self)) == ["Moss", "Rain", "Tide"])

            // Reordered on the phone; the laptop's next read has it.
            let ids = seen.entries.map(\.id)  // Tide, Rain, Moss
            let reordered = try await client.send(.PUT, "/api/queues/\(upNext)/entries", json: QueueOrderRequest(entries: [ids[1], ids[0], ids[2]]), auth: .cookie(phone))
            #expect(reordered.status == .ok)
            #expect(Self.titles(try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues[0]) == ["Rain", "Tide", "Moss"])
            // An order made before another device changed the queue (one missing, one twice, a stranger) is refused as such.
            for order in [[ids[1], ids[0]], [ids[0], ids[0], ids[1]], [ids[0], ids[1], UUID()]] {
                let stale = try await client.send(.PUT, "/api/queues/\(upNext)/entries", json: QueueOrderRequest(entries: order), auth: .cookie(ada))
                #expect(stale.status == .conflict && stale.error?.code == "queue_changed")
            }
            // Removed, then put back where it was (Undo).
            let removed = try await client.send(.DELETE, "/api/queues/\(upNext)/entries/\(ids[0])", auth: .cookie(ada))
            #expect(Self.titles(try removed.decode(QueueInfo.self)) == ["Rain", "Moss"])
            #expect(try await client.send(.DELETE, "/api/queues/\(upNext)/entries/\(ids[0])", auth: .cookie(ada)).status == .notFound)
            #expect(Self.titles(try await add(tide, index: 1).decode(QueueInfo.self)) == ["Rain", "Tide", "Moss"])

            // Bad items: an unknown kind, an id that is nobody's, an index below zero, a place that is not one.
            for item in ["song:1", "article:nope", "librivox:-3", ""] { #expect(try await add(item).status == .badRequest, "\(item)") }
            #expect(try await add("article:\(UUID())").status == .notFound)
            #expect(try await add(rain, index: -1).status == .badRequest)
            #expect(try await add(rain, at: "sideways").status == .badRequest)

            // A deleted article leaves the queue.
            let mossID = try #require(moss.split(separator: ":").last)
            #expect(try await client.send(.DELETE, "/api/articles/\(mossID)", auth: .cookie(ada)).status == .noContent)
            #expect(Self.titles(try await client.send(.GET, "/api/queues", auth: .cookie(phone)).decode(QueueList.self).queues[0]) == ["Rain", "Tide"])

            // Entries kept in capitals before are written in small letters by the migration.
            let sql = try #require(client.app.db as? any SQLDatabase)
            try await sql.raw("UPDATE queue_entries SET item = upper(item)").run()
            try await LowercaseQueueItems().prepare(on: client.app.db)
            let after = try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues[0]
            #expect(after.entries.map(\.item) == [rain, tide])
        }
    }

    @Test("named lists: made, renamed, each with its own entries, removed; Up Next stays; names are the person's own",
          arguments: TestDatabase.all)
    func namedLists(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let tide = try await Self.article("Tide", client, ada)
            let made = try await client.send(.POST, "/api/queues", json: QueueNameRequest(name: "  Bedtime "), auth: .cookie(ada))
            #expect(made.status == .created)
            let bedtime = try made.decode(QueueInfo.self)
            #expect(bedtime.name == "Bedtime" && !bedtime.main)
            for name in ["Bedtime", "bedtime", "up next", "", String(repeating: "x", count: 61)] {
                let refused = try await client.send(.POST, "/api/queues", json: QueueNameRequest(name: name), auth: .cookie(ada))
                #expect([.conflict, .badRequest].contains(refused.status), "\(name)")
            }
            _ = try await client.send(.POST, "/api/queues/\(bedtime.id)/entries", json: QueueAddRequest(item: tide), auth: .cookie(ada))
            let renamed = try await client.send(.PATCH, "/api/queues/\(bedtime.id)", json: QueueNameRequest(name: "Commute"), auth: .cookie(ada))
            #expect(try renamed.decode(QueueInfo.self).name == "Commute")
            let lists = try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues
            #expect(lists.map(\.name) == ["Up Next", "Commute"])
            #expect(lists[0].entries.isEmpty && Self.titles(lists[1]) == ["Tide"], "each list has its own entries")
            // Up Next can be neither renamed nor removed.
            let keep = try await client.send(.DELETE, "/api/queues/\(lists[0].id)", auth: .cookie(ada))
            #expect(keep.status == .conflict && keep.error?.code == "up_next_stays")
            #expect(try await client.send(.PATCH, "/api/queues/\(lists[0].id)", json: QueueNameRequest(name: "Mine"), auth: .cookie(ada)).status == .conflict)
            #expect(try await client.send(.DELETE, "/api/queues/\(bedtime.id)", auth: .cookie(ada)).status == .noContent)
            #expect(try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues.map(\.name) == ["Up Next"])
            // The article itself stays.
            #expect(try await client.send(.GET, "/api/articles", auth: .cookie(ada)).decode(ArticleList.self).items.count == 1)
        }
    }

    @Test("another person's lists and items are missing to them, as everywhere", arguments: TestDatabase.all)
    func isolation(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: ada)
            let tide = try await Self.article("Tide", client, ada)
            let hers = try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues[0]
            _ = try await client.send(.POST, "/api/queues/\(hers.id)/entries", json: QueueAddRequest(item: tide), auth: .cookie(ada))
            let entry = try #require(try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues[0].entries.first)
            let theirs = try await client.send(.GET, "/api/queues", auth: .cookie(bea)).decode(QueueList.self).queues[0]
            #expect(theirs.id != hers.id && theirs.entries.isEmpty)
            #expect(try await client.send(.POST, "/api/queues/\(hers.id)/entries", json: QueueAddRequest(item: tide), auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.POST, "/api/queues/\(theirs.id)/entries", json: QueueAddRequest(item: tide), auth: .cookie(bea)).status == .notFound,
                    "her article is not bea's to queue")
            #expect(try await client.send(.DELETE, "/api/queues/\(hers.id)/entries/\(entry.id)", auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.PUT, "/api/queues/\(hers.id)/entries", json: QueueOrderRequest(entries: [entry.id]), auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.GET, "/api/queues").status == .unauthorized)
            #expect(Self.titles(try await client.send(.GET, "/api/queues", auth: .cookie(ada)).decode(QueueList.self).queues[0]) == ["Tide"])
        }
    }
}
