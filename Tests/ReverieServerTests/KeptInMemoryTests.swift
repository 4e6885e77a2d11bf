#if canImport(Glibc)
import Glibc
#endif
import AudioRender
import Foundation
import ReverieAPI
@testable import ReverieServer
import Speech
import Testing
import Vapor
import SharedCases

/// What the server keeps in memory to answer fast (files, sessions, which file an item plays)
/// never answers with something that changed: on disk, in this server, or from another process.
@Suite("Kept in memory")
struct KeptInMemoryTests {
    /// A scratch folder, removed afterwards.
    private func request(_ app: Application, _ headers: HTTPHeaders = [:]) -> Request {
        Request(application: app, headers: headers, on: app.eventLoopGroup.next())
    }

    @Test("a file changed on disk, or replaced by another with the same size and time, is read again")
    func followsTheFile() async throws {
        try await withScratchApp { folder, app in
            let cache = FileCache(largest: 1 << 20, budget: 1 << 20)
            let file = folder.appendingPathComponent("a.txt").path
            func body() throws -> String? { try cache.response(file, request: request(app))?.body.string }
            try Data("one".utf8).write(to: URL(fileURLWithPath: file))
            #expect(try body() == nil, "nothing is kept before it is loaded")
            #expect(cache.load(file))
            #expect(try body() == "one")
            try Data("three".utf8).write(to: URL(fileURLWithPath: file))
            #expect(try body() == nil, "a changed file is not answered from memory")
            #expect(cache.load(file))
            #expect(try body() == "three")

            // Another file renamed over it, with the same size and modification time: only the inode tells.
            var old = stat()
            #expect(stat(file, &old) == 0)
            let other = folder.appendingPathComponent("b.txt").path
            try Data("seven".utf8).write(to: URL(fileURLWithPath: other))
            var times = [old.st_atim, old.st_mtim]
            #expect(utimensat(AT_FDCWD, other, &times, 0) == 0)
            #expect(rename(other, file) == 0)
            #expect(try body() == nil)
            #expect(cache.load(file))
            #expect(try body() == "seven")
            #expect(cache.bytes == 5)

            try FileManager.default.removeItem(atPath: file)
            #expect(try body() == nil)
            cache.forget(file)
            #expect(cache.bytes == 0)
        }
    }

    @Test("a range is a slice of the kept file; If-Range with another validator gets it whole; a range outside it is 416; a malformed one is ignored")
    func ranges() async throws {
        try await withScratchApp { folder, app in
            let cache = FileCache(largest: 1 << 20, budget: 1 << 20)
            let file = folder.appendingPathComponent("tone.m4a").path
            let bytes = (0..<1000).map { UInt8($0 % 251) }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            #expect(cache.load(file))

            let part = try #require(try cache.response(file, request: request(app, ["Range": "bytes=100-199"]), type: HTTPMediaType(type: "audio", subType: "mp4")))
            #expect(part.status == .partialContent)
            #expect(part.headers.first(name: .contentRange) == "bytes 100-199/1000")
            #expect(part.headers.first(name: .contentType) == "audio/mp4")
            #expect(part.headers.first(name: .acceptRanges) == "bytes")
            #expect(Array(part.body.buffer?.readableBytesView ?? ByteBuffer().readableBytesView) == Array(bytes[100...199]))

            let tail = try #require(try cache.response(file, request: request(app, ["Range": "bytes=-10"])))
            #expect(tail.headers.first(name: .contentRange) == "bytes 990-999/1000")
            #expect(tail.body.buffer?.readableBytes == 10)
            let past = try #require(try cache.response(file, request: request(app, ["Range": "bytes=900-5000"])))
            #expect(past.headers.first(name: .contentRange) == "bytes 900-999/1000")

            let eTag = try #require(part.headers.first(name: .eTag))
            let same = try #require(try cache.response(file, request: request(app, ["Range": "bytes=0-9", "If-Range": eTag])))
            #expect(same.status == .partialContent)
            let stale = try #require(try cache.response(file, request: request(app, ["Range": "bytes=0-9", "If-Range": "\"1-2-3\""])))
            #expect(stale.status == .ok && stale.body.buffer?.readableBytes == 1000)

            #expect(throws: APIError.self) { try cache.response(file, request: request(app, ["Range": "bytes=1000-"])) }
            // A Range not to answer is ignored: the whole file, 200 (RFC 9110 §14.2).
            for header in ["bytes=0-1,5-9", "bytes=5-4", "bytes=abc", "lines=1-2"] {
                let whole = try #require(try cache.response(file, request: request(app, ["Range": header])))
                #expect(whole.status == .ok && whole.body.buffer?.readableBytes == 1000, "\(header)")
            }
        }
    }

    @Test("a Range header is read as RFC 9110 says: clamped to the file, nothing satisfiable (416), or ignored (the whole file)")
    func byteRanges() {
        let cases: [(String, Request.ByteRange)] = [
            ("bytes=0-99", .part(0...99)), ("bytes=100-20000", .part(100...999)), ("bytes=990-", .part(990...999)),
            ("bytes=-10", .part(990...999)), ("bytes=-99999", .part(0...999)), ("bytes=999-999", .part(999...999)),
            ("Bytes=0-9", .part(0...9)), ("bytes=-99999999999999999999", .part(0...999)), ("bytes=5-99999999999999999999", .part(5...999)),
            ("bytes=1000-", .unsatisfiable), ("bytes=-0", .unsatisfiable), ("bytes=99999999999999999999-", .unsatisfiable),
            ("bytes=5-4", .whole), ("bytes=0-1,5-9", .whole), ("items=0-9", .whole), ("bytes=a-b", .whole), ("bytes=-", .whole),
            ("bytes=", .whole), ("bytes=٣-9", .whole), ("bytes=+5-9", .whole), ("bytes=0--9", .whole), ("", .whole),
        ]
        for (header, expected) in cases {
            #expect(Request.byteRange(header, size: 1000) == expected, "\(header)")
        }
        #expect(Request.byteRange("bytes=0-", size: 0) == .unsatisfiable)
        #expect(Request.byteRange("bytes=-5", size: 0) == .unsatisfiable)
    }

    @Test("files past the budget push out the least recently used; a file over the largest is not kept")
    func budget() async throws {
        try await withScratchApp { folder, app in
            let cache = FileCache(largest: 400, budget: 1000)
            func write(_ name: String, _ size: Int) throws -> String {
                let path = folder.appendingPathComponent(name).path
                try Data(repeating: 7, count: size).write(to: URL(fileURLWithPath: path))
                return path
            }
            let (a, b, c, big) = (try write("a.bin", 400), try write("b.bin", 400), try write("c.bin", 300), try write("big.bin", 401))
            #expect(!cache.load(big))
            #expect(cache.load(a) && cache.load(b))
            #expect(try cache.response(a, request: request(app)) != nil)   // a is now used after b
            #expect(cache.load(c))
            #expect(cache.bytes == 700)
            #expect(try cache.response(a, request: request(app)) != nil)
            #expect(try cache.response(b, request: request(app)) == nil, "the least recently used went")
            #expect(try cache.response(c, request: request(app)) != nil)
        }
    }

    @Test("signing out works at once; a token revoked by another process (the command line) stops working within a second", arguments: TestDatabase.all)
    func revocation(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let cookie = try await client.setUpOwner()
            let created = try await client.send(.POST, "/api/tokens", json: TokenCreateRequest(name: "script"), auth: .cookie(cookie))
            let token = try created.decode(CreatedToken.self)
            for _ in 0..<3 {
                #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .ok)
                #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).status == .ok)
            }

            #expect(try await client.send(.POST, "/api/auth/logout", auth: .cookie(cookie)).status == .noContent)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .cookie(cookie)).status == .unauthorized)
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .ok, "the token is read again, and kept")

            // As `reverie user set-password` does from its own process: the rows change, this
            // server's memory is not told.
            let elsewhere = FluentUserRepository(database: client.app.db)
            let user = try #require(try await elsewhere.find(username: "ada"))
            #expect(try await elsewhere.replacePassword(of: user.id, hash: "x", mustChange: false, keeping: nil))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.send(.GET, "/api/auth/me", auth: .bearer(token.secret)).status == .unauthorized)
        }
    }

    @Test("an item's audio removed by another process (the command line) stops playing within a second")
    func audioDetachedElsewhere() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let owner = try await client.setUpOwner()
            let tone = AudioBuffer(sampleRate: 22050, samples: (0..<66150).map { 0.03 * Float(sin(2 * Double.pi * 440 * Double($0) / 22050)) })
            let added = try await client.send(.PUT, "/api/winddown/hypnosis_deep_sleep/audio", data: WAVFile.encode(tone),
                                              contentType: "audio/wav", auth: .cookie(owner))
            #expect(added.status == .accepted, "\(added.text)")
            _ = try await eventually("the upload levelled") {
                try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep", auth: .cookie(owner)).text.contains("\"ready\"") ? true : nil
            }
            for _ in 0..<3 {
                let part = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(owner), headers: ["Range": "bytes=0-99"])
                #expect(part.status == .partialContent && part.bytes.count == 100)
            }
            #expect(try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio").status == .unauthorized)

            // The command line takes the item's audio away (Coming Soon).
            let removal = SleepAttachment(itemID: "hypnosis_deep_sleep", source: .removed, file: nil, originalName: nil, script: nil, durationMs: nil)
            #expect(try await FluentSleepAudioRepository(database: client.app.db).attach(removal) != nil)
            try await Task.sleep(for: .milliseconds(1100))
            let gone = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(owner), headers: ["Range": "bytes=0-99"])
            #expect(gone.status == .notFound && gone.text.contains("coming_soon"), "\(gone.status) \(gone.text.prefix(200))")
        }
    }
}
