import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor
import SharedCases

/// A LibriVox-shaped site on 127.0.0.1: the catalog API, the sections' MP3s, and the awkward
/// answers an outside service can give (redirect loops, oversize bodies).
enum FixtureSite {
    static func start(sections: [Data]) async throws -> LocalSite {
      try await LocalSite.start { app in
        app.get("api", "feed", "audiobooks") { req async throws -> Response in
            let base = "http://127.0.0.1:\(req.application.http.server.shared.localAddress?.port ?? 0)"
            let title = req.query[String.self, at: "title"], id = req.query[String.self, at: "id"], author = req.query[String.self, at: "author"]
            guard title == "^Quiet" || id == "47" || author == "Hollow" else {
                return Response(status: .notFound, body: .init(string: #"{"error":"Audiobooks could not be found"}"#))
            }
            let sectionsJSON = sections.indices.map { index in
                #"{"id":"\#(900 + index)","section_number":"\#(index + 1)","title":"Part <i>\#(index + 1)</i> &amp; more","listen_url":"\#(base)/audio/\#(index + 1).mp3","playtime":"3","readers":[{"reader_id":"5","display_name":"Reader \#(index + 1)"}]}"#
            }.joined(separator: ",")
            let book = #"{"books":[{"id":"47","title":"The Quiet Garden","description":"<p>A <b>calm</b> book.</p>","language":"English","totaltimesecs":6,"url_librivox":"https://librivox.org/the-quiet-garden/","authors":[{"id":"1","first_name":"Ada","last_name":"Hollow"}],"sections":[\#(sectionsJSON)]},{"title":"no id, skipped"}]}"#
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string: book))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("librivox-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, data) in sections.enumerated() { try data.write(to: folder.appendingPathComponent("\(index + 1).mp3")) }
        app.get("audio", ":n") { req async throws -> Response in
            guard let name = req.parameters.get("n"), let n = Int(name.replacingOccurrences(of: ".mp3", with: "")), sections.indices.contains(n - 1) else {
                throw Abort(.notFound)
            }
            return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent("\(n).mp3").path)
        }
        app.get("loop", ":n") { req -> Response in
            let n = Int(req.parameters.get("n") ?? "0") ?? 0
            return Response(status: .found, headers: ["Location": "/loop/\(n + 1)"])
        }
        app.get("big") { _ in Response(status: .ok, body: .init(data: Data(repeating: 7, count: 300_000))) }
      }
    }
}

@Suite("LibriVox and the guarded HTTP client: search, add as a background job, and what outside fetches refuse")
struct LibriVoxAPITests {
    @Test("private, loopback, link-local and reserved addresses are told from public ones, IPv4 inside IPv6 too")
    func addressRule() {
        for text in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                     "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::5", "ff02::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "64:ff9b::a00:1"] {
            #expect(OutsideAddress(text)?.isPrivate == true, "\(text)")
        }
        for text in ["93.184.216.34", "172.15.0.1", "172.32.0.1", "100.128.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(OutsideAddress(text)?.isPrivate == false, "\(text)")
        }
        #expect(OutsideAddress("not an address") == nil)
        #expect(OutsideAddress("::ffff:10.0.0.1")?.description == "::ffff:10.0.0.1")
    }

    @Test("the guarded client refuses private addresses unless allowed, stops after five redirects, and caps sizes")
    func guardedClient() async throws {
        let site = try await FixtureSite.start(sections: [])
        do {
            let group = MultiThreadedEventLoopGroup.singleton
            let strict = GuardedHTTPClient(policy: .init(), group: group)
            await #expect(throws: OutsideFetchError.privateAddress(host: "127.0.0.1", address: "127.0.0.1")) {
                try await strict.get(site.url.appendingPathComponent("big"), maxBytes: 1 << 20)
            }
            await #expect(throws: OutsideFetchError.self) { try await strict.get(URL(string: "http://localhost:1/")!, maxBytes: 10) }
            await #expect(throws: OutsideFetchError.badURL("file:///etc/passwd")) { try await strict.get(URL(string: "file:///etc/passwd")!, maxBytes: 10) }

            // Waits as long as a busy machine needs: this checks the rules, not the clock.
            var policy = GuardedHTTPClient.Policy().patient(10)
            policy.allowPrivate = true
            let allowed = GuardedHTTPClient(policy: policy, group: group)
            let big = try await allowed.get(site.url.appendingPathComponent("big"), maxBytes: 1 << 20)
            #expect(big.body.readableBytes == 300_000)
            await #expect(throws: OutsideFetchError.tooLarge(limit: 100_000)) {
                try await allowed.get(site.url.appendingPathComponent("big"), maxBytes: 100_000)
            }
            await #expect(throws: OutsideFetchError.tooManyRedirects(5)) {
                try await allowed.get(site.url.appendingPathComponent("loop/0"), maxBytes: 1000)
            }
            await #expect(throws: OutsideFetchError.status(404, host: "127.0.0.1")) {
                try await allowed.get(site.url.appendingPathComponent("nothing"), maxBytes: 1000)
            }
            // A refused connection is unreachable at once: not tried again until the (here long)
            // connect timeout, which would end as a timeout.
            await #expect(throws: OutsideFetchError.unreachable(host: "127.0.0.1")) {
                try await allowed.get(URL(string: "http://127.0.0.1:9/")!, maxBytes: 1000)
            }
        }
        await site.stop()
    }

    @Test("search by title and author; add a book: a job downloads its sections and joins them into one book with chapters and readers",
          arguments: TestDatabase.all)
    func searchAndAdd(database: TestDatabase) async throws {
        let parts = [try await LibraryAPITests.audioFile("1.mp3", seconds: 3, title: "one", frequency: 330),
                     try await LibraryAPITests.audioFile("2.mp3", seconds: 3, title: "two", frequency: 392)]
        let site = try await FixtureSite.start(sections: parts)
        do {
            try await withTestApp(database, adjust: { config in
                config.allowPrivateFetches = true
                config.librivoxBaseURL = site.url
            }) { client in
                client.app.jobs.start()
                let owner = try await client.setUpOwner()
                let search = try await client.send(.GET, "/api/librivox/search?q=Quiet", auth: .cookie(owner))
                #expect(search.status == .ok, "\(search.text)")
                let found = try search.decode(LibriVoxSearchResult.self)
                #expect(found.books.count == 1)
                let book = try #require(found.books.first)
                #expect(book.id == 47 && book.title == "The Quiet Garden" && book.authors == ["Ada Hollow"] && book.description == "A calm book.")
                #expect(book.sections.map(\.title) == ["Part 1 & more", "Part 2 & more"] && book.sections[1].readers == ["Reader 2"])
                let byAuthor = try await client.send(.GET, "/api/librivox/search?q=Hollow&by=author", auth: .cookie(owner)).decode(LibriVoxSearchResult.self)
                #expect(byAuthor.books.map(\.id) == [47])
                let none = try await client.send(.GET, "/api/librivox/search?q=Nothing", auth: .cookie(owner)).decode(LibriVoxSearchResult.self)
                #expect(none.books.isEmpty)
                #expect(try await client.send(.GET, "/api/librivox/search?q=", auth: .cookie(owner)).status == .badRequest)
                #expect(try await client.send(.GET, "/api/librivox/search?q=Quiet&by=reader", auth: .cookie(owner)).status == .badRequest)
                #expect(try await client.send(.GET, "/api/librivox/search?q=Quiet").status == .unauthorized)

                let accepted = try await client.send(.POST, "/api/librivox/books", json: LibriVoxAddRequest(id: 47), auth: .cookie(owner))
                #expect(accepted.status == .accepted, "\(accepted.text)")
                let job = try accepted.decode(JobInfo.self)
                #expect(job.title == "The Quiet Garden" && job.kind == "librivox.download")
                // Until the job has finished, however long two downloads and a join take on a busy
                // machine (it was read after 15 s before, and a loaded PostgreSQL run was still joining).
                let finished = try await eventually("the LibriVox download job finishing") {
                    let info = try await client.send(.GET, "/api/jobs/\(job.id)", auth: .cookie(owner)).decode(JobInfo.self)
                    return info.status == "done" || info.status == "failed" ? info : nil
                }
                #expect(finished.status == "done", "\(finished)")
                let itemID = try #require(finished.itemID)
                let item = try await client.send(.GET, "/api/library/\(itemID)", auth: .cookie(owner)).decode(LibraryItemInfo.self)
                #expect(item.kind == "book" && item.title == "The Quiet Garden" && item.author == "Ada Hollow")
                #expect(item.chapters.map(\.title) == ["Part 1 & more", "Part 2 & more"])
                #expect(item.chapters.map(\.readers) == [["Reader 1"], ["Reader 2"]])
                #expect(abs(item.duration - 6) < 0.2 && abs(item.chapters[1].start - 3) < 0.1)
                // Streamed before (or instead of) a download: the section's bytes, with Range passed on.
                let streamed = try await client.send(.GET, "/api/librivox/books/47/sections/2/audio", auth: .cookie(owner))
                #expect(streamed.status == .ok && streamed.bytes == parts[1] && streamed.headers.contentType?.description.hasPrefix("audio/") == true)
                let ranged = try await client.send(.GET, "/api/librivox/books/47/sections/1/audio", auth: .cookie(owner), headers: ["Range": "bytes=100-199"])
                #expect(ranged.status == .partialContent && ranged.bytes == parts[0][100..<200] && ranged.headers.first(name: .contentRange) != nil)
                #expect(try await client.send(.GET, "/api/librivox/books/47/sections/9/audio", auth: .cookie(owner)).status == .notFound)
                #expect(try await client.send(.GET, "/api/librivox/books/47/sections/1/audio").status == .unauthorized)
                #expect(try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [
                    ProgressEventInput(id: "lv", item: "librivox:47/1", device: "phone", at: client.clock.now, position: 2, kind: "ended")]),
                    auth: .cookie(owner)).status == .ok)

                let jobs = try await client.send(.GET, "/api/jobs", auth: .cookie(owner)).decode(JobList.self)
                #expect(jobs.jobs.map(\.id) == [job.id])

                // Another person sees neither the job nor the book.
                let bea = try await client.addUser("bea", by: owner)
                #expect(try await client.send(.GET, "/api/jobs/\(job.id)", auth: .cookie(bea)).status == .notFound)
                #expect(try await client.send(.GET, "/api/jobs", auth: .cookie(bea)).decode(JobList.self).jobs.isEmpty)
                #expect(try await client.send(.POST, "/api/librivox/books", json: LibriVoxAddRequest(id: 9999), auth: .cookie(owner)).status == .notFound)
            }
        }
        await site.stop()
    }

    @Test("without the owner's leave, a LibriVox on a private address is refused with a reason")
    func privateRefused() async throws {
        let site = try await FixtureSite.start(sections: [])
        try await withTestApp(.sqlite, adjust: { $0.librivoxBaseURL = site.url }) { client in
            let owner = try await client.setUpOwner()
            let answer = try await client.send(.GET, "/api/librivox/search?q=Quiet", auth: .cookie(owner))
            #expect(answer.status == .badRequest && answer.error?.code == "private_address")
        }
        await site.stop()
    }
}
