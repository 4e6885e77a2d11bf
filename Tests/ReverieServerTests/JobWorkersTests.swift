import Clocks
import Fluent
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
@testable import ReverieServer
import Testing
import SharedCases

/// The suite's `eventually` (SharedCases), under a name the type's own `eventually` does not hide.
private func waitFor<Value>(_ what: String, every: Duration, _ check: () async throws -> Value?) async throws -> Value {
    try await eventually(what, every: every, check)
}

/// The job workers and the feed schedule in virtual time: the poll, the leases and the minute
/// between looks for due feeds pass when the test moves its clocks, never by waiting.
@Suite("Jobs in virtual time")
struct JobWorkersTests {
    /// Waits until `condition` holds, moving `clock` on by `step` each time round when given, so
    /// a loop that is about to sleep on it is always woken: the suite's `eventually`, which looks
    /// again until its five minutes of wall time (the work is in threads a busy machine may give
    /// no time for a while), not a count of looks.
    static func eventually(_ what: Comment, clock: TestClock<Duration>? = nil, step: Duration = .seconds(1),
                           _ condition: () async throws -> Bool) async throws {
        _ = try await waitFor("\(what)", every: .milliseconds(1)) { () -> Bool? in
            if try await condition() { return true }
            if let clock { await clock.advance(by: step) }
            return nil
        }
    }

    /// A job as the table has it now.
    static func row(_ id: UUID, _ client: TestClient) async throws -> JobRecord {
        try #require(try await JobModel.find(id, on: client.app.db)?.record())
    }

    @Test("a job another server queued (no poke) runs at the next poll; one held by a live lease waits until the lease runs out")
    func pollAndLease() async throws {
        let loop = TestClock<Duration>()
        try await withTestApp(.sqlite, loopClock: loop) { client in
            _ = try await client.setUpOwner("ada")
            let owner = try #require(try await FluentUserRepository(database: client.app.db).find(username: "ada")?.id)
            let workers = client.app.services.jobs
            workers.start()
            try await Self.eventually("the workers wait for the poll") { workers.pollsBegun >= 1 }

            // Queued by "another server": straight into the table, no poke here. A refresh of a
            // podcast that is gone ends done with nothing to tell.
            let queued = try await FluentJobRepository(database: client.app.db).enqueue(ownerID: owner, kind: .feedRefresh, title: "Refreshing “Gone”",
                                                                         payload: #"{"podcastID":"\#(UUID().uuidString)"}"#)
            #expect(try await Self.row(queued.id, client).status == .queued)
            try await Self.eventually("the poll takes the queued job", clock: loop, step: JobWorkers.poll) {
                try await Self.row(queued.id, client).status == .done
            }

            // Held by a worker elsewhere whose lease has 60 s to go (its row written as that
            // server's worker left it): polls pass it by.
            let held = JobModel(ownerID: owner, kind: .feedRefresh, title: "Refreshing “Held”",
                                payload: #"{"podcastID":"\#(UUID().uuidString)"}"#)
            held.status = .running
            held.attempts = 1
            held.leaseUntil = client.clock.now.addingTimeInterval(JobWorkers.lease)
            try await held.create(on: client.app.db)
            let polls = workers.pollsBegun
            try await Self.eventually("two more polls", clock: loop, step: JobWorkers.poll) { workers.pollsBegun >= polls + 2 }
            #expect(try await Self.row(try held.requireID(), client).status == .running)

            // Its server went away: once the lease has run out, the next poll takes it.
            client.clock.advance(by: JobWorkers.lease + 1)
            try await Self.eventually("the lapsed job is taken again", clock: loop, step: JobWorkers.poll) {
                try await Self.row(try held.requireID(), client).status == .done
            }
            #expect(try await Self.row(try held.requireID(), client).attempts == 2)
            await workers.stop()
        }
    }

    @Test("a job of a kind this server does not know, or with input its kind cannot read, fails saying so")
    func unknownAndUnreadable() async throws {
        try await withTestApp(.sqlite) { client in
            _ = try await client.setUpOwner("ada")
            let owner = try #require(try await FluentUserRepository(database: client.app.db).find(username: "ada")?.id)
            // A newer server's kind is written as that server would, straight into the table.
            let unknown = JobModel(ownerID: owner, kind: .feedRefresh, title: "From a newer server", payload: "{}")
            unknown.kind = "future.kind"
            try await unknown.create(on: client.app.db)
            let unreadable = try await FluentJobRepository(database: client.app.db).enqueue(ownerID: owner, kind: .episodeDownload, title: "Damaged",
                                                                             payload: #"{"downloadID": 7}"#)
            client.app.services.jobs.start()
            client.app.services.jobs.poke()
            try await Self.eventually("both fail") {
                let first = try await Self.row(try unknown.requireID(), client).status
                let second = try await Self.row(unreadable.id, client).status
                return first == .failed && second == .failed
            }
            #expect(try await Self.row(try unknown.requireID(), client).message == "Reverie does not know this kind of job (future.kind).")
            #expect(try await Self.row(unreadable.id, client).message == "This job's input cannot be read as a podcast.download job.")
            await client.app.services.jobs.stop()
        }
    }

    @Test("the feed schedule looks for due feeds at start and then once a minute of its clock")
    func feedScheduleMinute() async throws {
        let loop = TestClock<Duration>()
        let looked = LockedTimes()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let schedule = FeedSchedule(clock: loop, now: { start.addingTimeInterval(Double(looked.count) * 60) }) { time in
            looked.append(time)
            return 0
        }
        schedule.start()
        try await Self.eventually("the first look") { schedule.looks == 1 }
        await loop.advance(by: .seconds(59))
        #expect(looked.count == 1)
        try await Self.eventually("the next minute's look", clock: loop, step: .seconds(1)) { schedule.looks == 2 }
        #expect(looked.times == [start, start.addingTimeInterval(60)])
        await schedule.stop()
    }

    @Test("a job's JSON and kind are its type: enqueued values come back as they went in")
    func typedPayloads() async throws {
        let cases: [(any Job, String)] = [
            (LibriVoxDownload(bookID: 47), #"{"bookID":47}"#),
            (ArticleImport(url: "https://example.org/a", file: nil, name: nil), #"{"url":"https:\/\/example.org\/a"}"#),
            (ServerBackup(), "{}"),
        ]
        for (job, json) in cases {
            #expect(String(decoding: try JSONEncoder().encode(job), as: UTF8.self) == json)
        }
        // The kinds the features declare are the ones the workers run, as the API documents them.
        try await withTestApp(.sqlite) { client in
            #expect(Set(client.app.services.jobs.kinds.map(\.rawValue))
                == ["librivox.download", "feeds.refresh", "podcast.download", "article.import", "server.backup"])
        }
        #expect(JobOutput.decode(#"{"itemID":"abc"}"#)?.itemID == "abc")
        #expect(JobOutput.none.json == nil && JobOutput(outcome: "unchanged").json == #"{"outcome":"unchanged"}"#)
    }
}

/// Times a closure was called with, from any task.
final class LockedTimes: Sendable {
    private let box = NIOLockedValueBox<[Date]>([])
    var times: [Date] { box.withLockedValue { $0 } }
    var count: Int { times.count }
    func append(_ time: Date) { box.withLockedValue { $0.append(time) } }
}
