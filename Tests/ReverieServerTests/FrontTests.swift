import Foundation
import NIOCore
@testable import ReverieServer
import Testing
import Vapor

/// Behind the production front (deploy/nginx, issue 32): only the front's X-Forwarded-For is
/// believed, and a file is handed to the front to send, never to anyone else.
@Suite("The production front")
struct FrontTests {
    let front = FrontSettings(addresses: ["127.0.0.1"])

    @Test("REVERIE_FRONT lists the front's addresses; anything else is refused with the setting named")
    func settings() throws {
        let config = try ServerConfig.resolve(environment: ["REVERIE_FRONT": "127.0.0.1, ::1"], locateWeb: { "/srv/web" })
        #expect(config.front.addresses == ["127.0.0.1", "::1"])
        #expect(try ServerConfig.resolve(environment: [:], locateWeb: { "/srv/web" }).front.addresses.isEmpty)
        #expect(throws: ConfigError.self) { try ServerConfig.resolve(environment: ["REVERIE_FRONT": "nginx.local"], locateWeb: { "/srv/web" }) }
    }

    @Test("the client's address: the front's last X-Forwarded-For entry; from anyone else the peer, whatever it claims")
    func clientAddress() async throws {
        try await withScratchApp { _, app in
            let fromFront = try request(app, from: "127.0.0.1", headers: ["X-Forwarded-For": "10.0.0.9, 203.0.113.7"])
            #expect(front.clientAddress(of: fromFront) == "203.0.113.7")
            let spoofed = try request(app, from: "198.51.100.4", headers: ["X-Forwarded-For": "203.0.113.7"])
            #expect(front.clientAddress(of: spoofed) == "198.51.100.4")
            let garbage = try request(app, from: "127.0.0.1", headers: ["X-Forwarded-For": "not-an-address"])
            #expect(front.clientAddress(of: garbage) == "127.0.0.1")
            #expect(FrontSettings().clientAddress(of: fromFront) == "127.0.0.1")
        }
    }

    @Test("a file is handed to the front with X-Accel-Redirect and no body; anyone else gets the bytes")
    func handOver() async throws {
        try await withScratchApp { folder, app in
            let file = folder.appendingPathComponent("media/library/ab cd.mp3")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 7, count: 1000).write(to: file)
            var media = MediaFiles(cache: FileCache(largest: 1 << 20, budget: 1 << 20), threadPool: app.threadPool,
                                   incomingDirectory: folder.appendingPathComponent("media/.incoming"))
            media.dataDirectory = folder.path
            media.front = front

            let handed = try await media.serve(file.path, type: "audio/mpeg", name: nil,
                                               for: try request(app, from: "127.0.0.1", headers: ["Range": "bytes=0-9"]))
            #expect(handed.status == .ok)
            #expect(handed.headers.first(name: "X-Accel-Redirect") == "/_reverie_files/media/library/ab%20cd.mp3")
            #expect(handed.headers.contentType == HTTPMediaType(type: "audio", subType: "mpeg"))
            #expect(handed.body.count == 0)

            let direct = try await media.serve(file.path, type: "audio/mpeg", name: nil,
                                               for: try request(app, from: "192.168.1.7", headers: ["Range": "bytes=0-9"]))
            #expect(direct.status == .partialContent)
            #expect(direct.headers.first(name: "X-Accel-Redirect") == nil)

            // A file outside the data directory is never handed over: the front could not reach it.
            #expect(FrontSettings.internalPath(of: "/etc/passwd", dataDirectory: folder.path) == nil)
            #expect(FrontSettings.internalPath(of: folder.path + "/../x", dataDirectory: folder.path) == nil)
        }
    }

    @Test("with the front's media secret, a file's answer is a redirect to its signed address, as nginx's secure_link checks it")
    func signedAddress() async throws {
        let signing = FrontSettings(addresses: ["127.0.0.1"], mediaKey: "0123456789abcdef0123")
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        // The hour after next's end; MD5 over expiry, the decoded path and the secret, in base64url
        // (the figure from Python's hashlib, as nginx's documentation computes it with openssl).
        #expect(signing.signedAddress(of: "/srv/reverie/media/library/ab cd.mp3", type: "audio/mpeg", dataDirectory: "/srv/reverie/", now: now)
            == "/_media/mpeg/media/library/ab%20cd.mp3?e=1000022400&s=CXY3OnAxlEKIhIvfafskiQ")
        // No address for a type the front has no place for, a file elsewhere, or without a secret.
        #expect(signing.signedAddress(of: "/srv/reverie/x.vtt", type: "text/vtt; charset=utf-8", dataDirectory: "/srv/reverie", now: now) == nil)
        #expect(signing.signedAddress(of: "/etc/passwd", type: "audio/mpeg", dataDirectory: "/srv/reverie", now: now) == nil)
        #expect(signing.signedAddress(of: "/srv/reverie/../x.mp3", type: "audio/mpeg", dataDirectory: "/srv/reverie", now: now) == nil)
        #expect(front.signedAddress(of: "/srv/reverie/x.mp3", type: "audio/mpeg", dataDirectory: "/srv/reverie", now: now) == nil)

        try await withScratchApp { folder, app in
            let file = folder.appendingPathComponent("media/library/song.mp3")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: 7, count: 1000).write(to: file)
            var media = MediaFiles(cache: FileCache(largest: 1 << 20, budget: 1 << 20), threadPool: app.threadPool,
                                   incomingDirectory: folder.appendingPathComponent("media/.incoming"))
            media.dataDirectory = folder.path
            media.front = signing
            let sent = try await media.serve(file.path, type: "audio/mpeg", name: nil, for: try request(app, from: "127.0.0.1"))
            #expect(sent.status == .temporaryRedirect)
            #expect(sent.headers.first(name: .location)?.hasPrefix("/_media/mpeg/media/library/song.mp3?e=") == true)
            #expect(sent.headers.first(name: .cacheControl) == "no-store")
            // A type with no place at the front is handed over; anyone else gets the bytes.
            let captions = try await media.serve(file.path, type: "text/vtt; charset=utf-8", name: nil, for: try request(app, from: "127.0.0.1"))
            #expect(captions.headers.first(name: "X-Accel-Redirect") == "/_reverie_files/media/library/song.mp3")
            let direct = try await media.serve(file.path, type: "audio/mpeg", name: nil, for: try request(app, from: "192.168.1.7"))
            #expect(direct.status == .ok && direct.body.count == 1000)
        }
    }

    @Test("REVERIE_FRONT_MEDIA_KEY_FILE gives the front's media secret; a missing or short one is refused with the setting named")
    func mediaKeyFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-media-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("media.key"), short = folder.appendingPathComponent("short.key")
        try "0123456789abcdef0123\n".write(to: good, atomically: true, encoding: .utf8)
        try "0123".write(to: short, atomically: true, encoding: .utf8)
        let config = try ServerConfig.resolve(environment: ["REVERIE_FRONT": "127.0.0.1", "REVERIE_FRONT_MEDIA_KEY_FILE": good.path],
                                              locateWeb: { "/srv/web" })
        #expect(config.front.mediaKey == "0123456789abcdef0123")
        for file in [short.path, folder.appendingPathComponent("missing").path] {
            #expect(throws: ConfigError.self) {
                try ServerConfig.resolve(environment: ["REVERIE_FRONT": "127.0.0.1", "REVERIE_FRONT_MEDIA_KEY_FILE": file], locateWeb: { "/srv/web" })
            }
        }
    }

    private func request(_ app: Application, from address: String, headers: HTTPHeaders = [:]) throws -> Request {
        Request(application: app, method: .GET, url: URI(path: "/api/library/x/audio"), headers: headers,
                remoteAddress: try SocketAddress(ipAddress: address, port: 40_000), on: app.eventLoopGroup.next())
    }
}
