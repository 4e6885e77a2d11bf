import Foundation
import Glibc
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("What a request may hold (issue 50): bodies over a route's limit answered at once, JSON routes take only JSON, no control characters in text, ids in lower case")
struct RequestLimitsTests {
    @Test("a body declared over the route's limit is answered 413 as soon as its first bytes arrive, naming both sizes, for a JSON route and a file route")
    func declaredTooLarge() async throws {
        try await withTestApp(.sqlite) { client in
            let app = client.app
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            do {
                let port = try #require(app.http.server.shared.localAddress?.port)
                for (path, type, limit) in [("/api/compositions", "application/json", "1 MB"), ("/api/compositions/import", "text/plain", "1 MB"),
                                            ("/api/rhymes/analyze", "application/json", "8 MB")] {
                    // The head and the first kilobyte of a body said to be 4.7 GB; nothing more is sent.
                    let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(type)\r\nContent-Length: 5000000000\r\n\r\n"
                    let answer = try await RawHTTP.exchange(port: port, Data(head.utf8) + Data(repeating: 0x20, count: 1024))
                    #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer.prefix(300))")
                    #expect(answer.contains("\"code\":\"payload_too_large\""), "\(path)")
                    #expect(answer.contains("The body is 4.66 GB; \(path) takes at most \(limit)."), "\(path): \(answer)")
                }
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    @Test("uploads sent in small pieces with no declared length, three at once, are kept byte for byte; one that runs past the limit is answered 413, and the server goes on")
    func streamedUploads() async throws {
        var made: [Data] = []
        for frequency in [330, 440, 550] {
            made.append(try await LibraryAPITests.audioFile("song-\(frequency).mp3", seconds: 120, title: "Song \(frequency)", frequency: frequency))
        }
        let songs = made
        let limit = songs.map(\.count).max()! + 1_000
        try await withTestApp(.sqlite, maxUploadBytes: limit) { client in
            let owner = try await client.setUpOwner()
            let app = client.app
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            do {
                let port = try #require(app.http.server.shared.localAddress?.port)
                // Chunked, in 4 KB pieces: the server reads them faster than it writes them out at
                // times, so its reading waits for its writing (the back-pressure) many times over.
                func upload(_ bytes: Data, named name: String) -> Data {
                    var request = Data(("POST /api/library HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(SessionAuthenticator.cookieName)=\(owner)\r\n"
                                        + "Content-Type: audio/mpeg\r\nX-File-Name: \(name)\r\nTransfer-Encoding: chunked\r\n\r\n").utf8)
                    var start = 0
                    while start < bytes.count {
                        let piece = bytes[start..<min(start + 4096, bytes.count)]
                        request += Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8)
                        start += piece.count
                    }
                    return request + Data("0\r\n\r\n".utf8)
                }
                let requests = zip(songs, ["first.mp3", "second.mp3", "third.mp3"]).map { upload($0, named: $1) }
                async let first = RawHTTP.exchange(port: port, requests[0])
                async let second = RawHTTP.exchange(port: port, requests[1])
                async let third = RawHTTP.exchange(port: port, requests[2])
                let answers = try await [first, second, third]
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                for (answer, song) in zip(answers, songs) {
                    #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(400))")
                    let body = try #require(answer.range(of: "\r\n\r\n").map { answer[$0.upperBound...] })
                    let item = try decoder.decode(LibraryUploadResult.self, from: Data(body.utf8)).item
                    #expect(item.byteSize == song.count)
                    let kept = try await client.send(.GET, item.audioURL, auth: .cookie(owner))
                    #expect(kept.bytes == song, "\(item.originalName ?? "?") was not kept as sent")
                }
                // Past the limit with no length declared: refused once the limit is passed.
                let over = try await RawHTTP.exchange(port: port, upload(songs[0] + Data(repeating: 0x55, count: 20_000), named: "over.mp3"))
                #expect(over.hasPrefix("HTTP/1.1 413") && over.contains("REVERIE_MAX_UPLOAD_BYTES"), "\(over.prefix(400))")
                let health = try await RawHTTP.exchange(port: port, Data("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(300))")
                let listed = try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self)
                #expect(listed.items.count == 3)
                let incoming = client.app.services.config.mediaDirectory(".incoming").path
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: incoming)) ?? []).isEmpty, "a refused upload left its scratch file")
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    @Test("a JSON route refuses a form, text or an untyped body with 415 and stores nothing; JSON with a charset is taken, and a file route takes its file")
    func onlyJSON() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            for type in ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"] {
                let body = type.hasPrefix("application/x-www") ? "title=Formed&lyrics=posted" : #"{"title":"Formed","lyrics":"posted"}"#
                let refused = try await client.send(.POST, "/api/compositions", raw: body, contentType: type, auth: .cookie(ada))
                #expect(refused.status == .unsupportedMediaType, "\(type): \(refused.status) \(refused.text)")
                #expect(refused.error?.code == "unsupported_media_type")
                #expect(refused.error?.message.contains("Content-Type: application/json") == true)
            }
            #expect(try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self).isEmpty)
            let taken = try await client.send(.POST, "/api/compositions", raw: #"{"title":"Typed","lyrics":"right"}"#,
                                              contentType: "application/json; charset=utf-8", auth: .cookie(ada))
            #expect(taken.status == .created, "\(taken.text)")
            let imported = try await client.send(.POST, "/api/compositions/import", raw: "A line\nAnother", contentType: "text/plain",
                                                 auth: .cookie(ada), headers: ["X-File-Name": "Song.txt"])
            #expect(imported.status == .created, "\(imported.text)")
            // A request with no body is not asked for a type.
            #expect(try await client.send(.POST, "/api/auth/logout", auth: .cookie(ada)).status.code < 300)
        }
    }

    @Test("control characters in a text field are refused with a 400 naming the field; tabs and new lines are text")
    func controlCharacters() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            for (raw, field) in [(#"{"title":"Night\u0000Song","lyrics":"x"}"#, "title"), (#"{"title":"ok","lyrics":"bell \u0007"}"#, "lyrics"),
                                 (#"{"title":"ok","lyrics":"esc \u001B[31m"}"#, "lyrics"), (#"{"title":"ok","lyrics":"c1 \u0085"}"#, "lyrics")] {
                let refused = try await client.send(.POST, "/api/compositions", raw: raw, auth: .cookie(ada))
                #expect(refused.status == .badRequest, "\(raw)")
                #expect(refused.error == APIErrorBody.Detail(code: "invalid_field", message: "\(field): control characters are not allowed in text."), "\(refused.text)")
            }
            // Escapes JSON has for two of them, and DEL and C1 as they are (valid JSON unescaped).
            for (raw, field) in [(#"{"title":"back\bspace","lyrics":"x"}"#, "title"), (#"{"title":"ok","lyrics":"page\ffeed"}"#, "lyrics"),
                                 ("{\"title\":\"del\u{7F}\",\"lyrics\":\"x\"}", "title"), ("{\"title\":\"ok\",\"lyrics\":\"nel\u{85}\"}", "lyrics")] {
                let refused = try await client.send(.POST, "/api/compositions", raw: raw, auth: .cookie(ada))
                #expect(refused.error?.message == "\(field): control characters are not allowed in text.", "\(raw.debugDescription): \(refused.text)")
            }
            // A saved article's title and address too (its page's HTML is read as sent).
            let article = try await client.send(.POST, "/api/articles", raw: #"{"url":"https://example.com/a","title":"Bad\u0000Title","text":"Some words."}"#,
                                                auth: .cookie(ada))
            #expect(article.error?.message == "title: control characters are not allowed in text.", "\(article.text)")
            // A file's stray ones are left out of an imported song: there is no field to name.
            let imported = try await client.send(.POST, "/api/compositions/import", raw: "Line one\u{0C}\nLine\u{1B} two", contentType: "text/plain",
                                                 auth: .cookie(ada), headers: ["X-File-Name": "Pasted.txt"])
            #expect(imported.status == .created, "\(imported.text)")
            #expect(try imported.decode(Composition.self).lyrics == "Line one\nLine two")
            _ = try await client.send(.DELETE, "/api/compositions/\(try imported.decode(Composition.self).id)", auth: .cookie(ada))
            // Deeper in a body: the path to the field.
            let events = #"{"events":[{"id":"a","item":"winddown:yoga_nidra_5min","device":"phone","at":"2026-11-30T22:00:00Z","position":1,"kind":"pause"},"#
                + #"{"id":"b","item":"winddown:yoga_nidra_5min","device":"ph\u0000one","at":"2026-11-30T22:00:01Z","position":2,"kind":"pause"}]}"#
            let deep = try await client.send(.POST, "/api/progress/events", raw: events, auth: .cookie(ada))
            #expect(deep.error?.message == "events[1].device: control characters are not allowed in text.", "\(deep.text)")
            #expect(try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self).isEmpty)
            // Tabs, line ends and escaped letters are text.
            let song = try await client.send(.POST, "/api/compositions", raw: #"{"title":"Caf\u00e9","lyrics":"one\ttwo\r\nthree\nfour"}"#, auth: .cookie(ada))
            #expect(song.status == .created, "\(song.text)")
            #expect(try song.decode(Composition.self).title == "Café")
        }
    }

    @Test("every id in an answer is lower case: songs, tokens, people, queues, meditation sessions")
    func lowerCaseIDs() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            _ = try await client.addUser("bea", by: ada)
            let song = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Ids", lyrics: "small"), auth: .cookie(ada))
            let id = try song.decode(Composition.self).id
            let now = client.clock.now
            let session = MeditationSessionRecord(id: UUID(), sessionType: "basic-breathing", startedAt: now.addingTimeInterval(-60), completedAt: now,
                                                  plannedDurationSeconds: 60, actualDurationSeconds: 60, completedFully: true)
            var answers = [song.text]
            answers.append(try await client.send(.POST, "/api/meditation-sessions", json: session, auth: .cookie(ada)).text)
            answers.append(try await client.send(.POST, "/api/tokens", json: ["name": "script"], auth: .cookie(ada)).text)
            for path in ["/api/compositions", "/api/compositions/\(id)", "/api/tokens", "/api/users", "/api/queues", "/api/meditation-sessions/latest", "/api/auth/me"] {
                let reply = try await client.send(.GET, path, auth: .cookie(ada))
                #expect(reply.status == .ok, "\(path)")
                answers.append(reply.text)
            }
            let upper = try Regex("[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")
            for answer in answers {
                let ids = answer.matches(of: upper).map { String(answer[$0.range]) }.filter { $0.contains(where: \.isUppercase) }
                #expect(ids.isEmpty, "upper-case ids in \(answer.prefix(400))")
            }
        }
    }
}

/// One HTTP/1.1 exchange over a plain socket, for requests no HTTP client sends (a body that
/// never comes). Blocking calls on a thread of their own; the socket's receive timeout is only
/// a bound for a broken server (the answer is read as soon as it arrives).
enum RawHTTP {
    static func exchange(port: Int, _ request: Data, within seconds: Int = 120) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try blockingExchange(port: port, request, within: seconds) })
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static func blockingExchange(port: Int, _ request: Data, within seconds: Int) throws -> String {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(errno)") }
        let sent = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw Failure(description: "send: \(errno)") }
        // Until the head and as much body as it declares have come, or the server closes.
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length { break }
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
