import Foundation
import NIOConcurrencyHelpers
import Vapor

/// A local stand-in for the outside world podcasts and radio come from: feeds (with ETags, that
/// change when told), episode audio (with Range, and a flaky copy that breaks off halfway the
/// first time), a chapters file, a transcript, the iTunes Search API, Podcast Index, and
/// radio-browser (a server list naming a broken server beside the working one).
final class PodcastSite: Sendable {
    let site: LocalSite
    private let state: NIOLockedValueBox<State>

    struct State {
        /// Episodes of each feed by its number, newest last.
        var episodes: [Int: [String]] = [:]
        var version: [Int: Int] = [:]
        var hits: [String: Int] = [:]
        var notModified = 0
        var ranges: [String] = []
        var flakyBroken = false
        var clicks: [String] = []
        var podcastIndexAuth: [String] = []
    }

    static let stationID = "96062a7b-0601-11e8-ae97-52543be04c81"
    static let hlsStationID = "1c4a3e2f-0601-11e8-ae97-52543be04c81"

    /// `chaptered`: audio with chapters of its own (ID3 CHAP), the enclosure of feed 3's episodes,
    /// which name no chapters file.
    static func start(audio: Data, chaptered: Data? = nil) async throws -> PodcastSite {
        let state = NIOLockedValueBox(State())
        state.withLockedValue { $0.episodes = [1: ["Owls", "Moths"]] }
        func base(_ req: Request) -> String { "http://127.0.0.1:\(req.application.http.server.shared.localAddress?.port ?? 0)" }
        func count(_ key: String) { state.withLockedValue { $0.hits[key, default: 0] += 1 } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podcast-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try audio.write(to: folder.appendingPathComponent("tone.mp3"))
        try (chaptered ?? audio).write(to: folder.appendingPathComponent("chaptered.mp3"))
        // The HLS-only station: 12 s of AAC in 4 s MPEG-TS segments, under a master playlist.
        let hls = folder.appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: hls, withIntermediateDirectories: true)
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=392:d=12", "-ar", "44100", "-ac", "1", "-c:a", "aac", "-b:a", "64k",
                            "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod", "-hls_segment_filename", hls.appendingPathComponent("owl%03d.ts").path,
                            hls.appendingPathComponent("audio.m3u8").path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        let site = try await LocalSite.start { app in
        app.get("radio", "owl.m3u8") { _ -> Response in
            Response(status: .ok, headers: ["Content-Type": "application/vnd.apple.mpegurl"], body: .init(string: """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2"
                video.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=70000,CODECS="mp4a.40.2"
                hls/audio.m3u8

                """))
        }
        app.get("radio", "hls", ":name") { req async throws -> Response in
            guard let name = req.parameters.get("name"), !name.contains("/"), !name.hasPrefix("."),
                  FileManager.default.fileExists(atPath: hls.appendingPathComponent(name).path) else { throw Abort(.notFound) }
            count("hls/\(name)")
            return try await req.fileio.asyncStreamFile(at: hls.appendingPathComponent(name).path)
        }

        app.get("feeds", ":n") { req -> Response in
            let name = req.parameters.get("n") ?? ""
            guard let n = Int(name.replacingOccurrences(of: ".xml", with: "")) else { throw Abort(.notFound) }
            count("feed\(n)")
            if n == 99 { return Response(status: .internalServerError) }
            if n == 98 { return Response(status: .ok, body: .init(string: "<html><body>not a feed</body></html>")) }
            if n == 97 {
                // As some hosts publish: a newline before the declaration, and a bare ampersand.
                let broken = "\n<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Salt & Night</title><item><title>Fish & Moths</title>"
                    + "<guid>ep-97</guid><enclosure url=\"\(base(req))/audio/tone.mp3\" type=\"audio/mpeg\" length=\"\(audio.count)\"/></item>"
                    + "<item><guid>ep-97-untitled</guid><enclosure url=\"\(base(req))/audio/tone.mp3?2\" type=\"audio/mpeg\" length=\"1\"/></item></channel></rss>"
                return Response(status: .ok, headers: ["Content-Type": "application/rss+xml"], body: .init(string: broken))
            }
            let (titles, version) = state.withLockedValue { ($0.episodes[n] ?? ["Only"], $0.version[n] ?? 1) }
            let etag = "\"v\(version)\""
            if req.headers.first(name: .ifNoneMatch) == etag {
                state.withLockedValue { $0.notModified += 1 }
                return Response(status: .notModified, headers: ["ETag": etag])
            }
            let here = base(req)
            let items = titles.enumerated().reversed().map { index, title in
                """
                <item><title>\(title)</title><guid>ep-\(n)-\(index)</guid>
                <pubDate>Mon, \(String(format: "%02d", 10 + index)) Nov 2026 21:00:00 GMT</pubDate><itunes:duration>0:06</itunes:duration>
                <enclosure url="\(here)/audio/\(n == 3 ? "chaptered" : index == 0 ? "flaky" : "tone").mp3" type="audio/mpeg" length="\(audio.count)"/>
                \(n == 3 ? "" : #"<podcast:chapters url="/chapters.json" type="application/json+chapters"/>"#)
                <podcast:transcript url="\(here)/transcript.vtt" type="text/vtt"/>
                <description>About \(title.lowercased()).</description></item>
                """
            }.joined(separator: "\n")
            let feed = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
            <channel><title>Night Owls \(n)</title><link>\(here)/</link><itunes:author>Ann Host</itunes:author>
            <itunes:image href="\(here)/art.jpg?feed=\(n)"/><description>Birds at night.</description>
            \(items)
            </channel></rss>
            """
            return Response(status: .ok, headers: ["Content-Type": "application/rss+xml", "ETag": etag], body: .init(string: feed))
        }
        app.get("audio", "chaptered.mp3") { req async throws -> Response in
            try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent("chaptered.mp3").path)
        }
        app.get("audio", "tone.mp3") { req async throws -> Response in
            count("tone")
            return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent("tone.mp3").path)
        }
        // The first time, half the file and then the connection drops; after that, Range honoured.
        app.get("audio", "flaky.mp3") { req async throws -> Response in
            count("flaky")
            let range = req.headers.first(name: .range)
            let breakOff = state.withLockedValue { state -> Bool in
                if let range { state.ranges.append(range) }
                defer { state.flakyBroken = true }
                return !state.flakyBroken
            }
            guard breakOff else { return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent("tone.mp3").path) }
            let half = audio.prefix(audio.count / 2)
            return Response(status: .ok, headers: ["Content-Type": "audio/mpeg", "Content-Length": String(audio.count)],
                            body: .init(asyncStream: { writer in
                                try await writer.write(.buffer(ByteBuffer(data: half)))
                                try await Task.sleep(nanoseconds: 100_000_000)
                                try await writer.write(.error(Abort(.internalServerError)))
                            }, count: audio.count))
        }
        app.get("art.jpg") { _ -> Response in
            count("art")
            // A JPEG's first bytes are enough for the server to keep and answer it.
            return Response(status: .ok, headers: ["Content-Type": "image/jpeg"], body: .init(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46])))
        }
        app.get("page.html") { _ -> Response in
            count("page")
            return Response(status: .ok, headers: ["Content-Type": "text/html"], body: .init(string: "<html><body>not a picture</body></html>"))
        }
        app.get("chapters.json") { _ in
            Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string: """
            {"version":"1.2.0","chapters":[{"startTime":0,"title":"Hello"},{"startTime":2.5,"title":"The owls"},{"startTime":4,"title":"Ads","toc":false}]}
            """))
        }
        app.get("transcript.vtt") { _ in
            Response(status: .ok, headers: ["Content-Type": "text/vtt"], body: .init(string: """
            WEBVTT

            00:00:00.500 --> 00:00:02.000
            <v Ann>Good evening.

            00:00:02.500 --> 00:00:05.000
            <v Ann>Listen to the owls.
            """))
        }
        app.get("itunes", "search") { req -> Response in
            let term = req.query[String.self, at: "term"] ?? ""
            guard req.query[String.self, at: "media"] == "podcast", term.lowercased().contains("owl") else {
                return Response(status: .ok, body: .init(string: #"{"resultCount":0,"results":[]}"#))
            }
            let here = base(req)
            return Response(status: .ok, headers: ["Content-Type": "text/javascript"], body: .init(string: """
            {"resultCount":2,"results":[{"collectionName":"Night Owls 1","artistName":"Ann Host","feedUrl":"\(here)/feeds/1.xml","artworkUrl600":"\(here)/art.jpg","trackCount":2},
            {"collectionName":"Apple only","artistName":"Nobody"}]}
            """))
        }
        app.get("pi", "api", "1.0", "search", "byterm") { req -> Response in
            let auth = [req.headers.first(name: "X-Auth-Key"), req.headers.first(name: "X-Auth-Date"), req.headers.first(name: .authorization)].map { $0 ?? "" }
            state.withLockedValue { $0.podcastIndexAuth = auth }
            let here = base(req)
            return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(string: """
            {"status":"true","feeds":[{"title":"Night Owls 1","author":"Ann Host","url":"\(here)/feeds/1.xml","episodeCount":2},
            {"title":"Owl Hour","author":"","url":"\(here)/feeds/2.xml","artwork":"\(here)/art2.jpg","episodeCount":1}]}
            """))
        }
        // radio-browser: a server list with a dead server beside this one.
        app.get("json", "servers") { req -> Response in
            let port = req.application.http.server.shared.localAddress?.port ?? 0
            return Response(status: .ok, body: .init(string: #"[{"ip":"127.0.0.1","name":"localhost:\#(port)"},{"ip":"127.0.0.1","name":"127.0.0.1:\#(port)"}]"#))
        }
        // The server named "localhost" is broken: every question to it fails.
        app.middleware.use(BrokenServer())
        func stations(_ req: Request) -> String {
            let here = base(req)
            return """
            [{"stationuuid":"\(stationID)","name":"Night Owl FM","url":"\(here)/radio/owl.pls","url_resolved":"\(here)/audio/tone.mp3","homepage":"https://owl.example/","favicon":"","country":"Nowhere","tags":"ambient,night","codec":"MP3","bitrate":128,"hls":0,"votes":10},
             {"stationuuid":"\(hlsStationID)","name":"Owl HLS","url":"\(here)/radio/owl.m3u8","url_resolved":"\(here)/radio/owl.m3u8","favicon":"\(here)/art.jpg?station=hls","codec":"AAC","hls":1,"tags":""},
             {"stationuuid":"not-a-uuid","name":"Broken"}]
            """
        }
        app.get("json", "stations", "search") { req -> Response in
            let name = req.query[String.self, at: "name"] ?? ""
            return Response(status: .ok, body: .init(string: name.lowercased().contains("owl") ? stations(req) : "[]"))
        }
        app.get("json", "stations", "topclick", ":n") { req -> Response in Response(status: .ok, body: .init(string: stations(req))) }
        app.get("json", "stations", "byuuid", ":id") { req -> Response in
            let id = req.parameters.get("id") ?? ""
            guard id == stationID || id == hlsStationID else { return Response(status: .ok, body: .init(string: "[]")) }
            let all = stations(req)
            // Only the station asked for.
            let list = try JSONSerialization.jsonObject(with: Data(all.utf8)) as? [[String: Any]] ?? []
            let one = list.filter { ($0["stationuuid"] as? String) == id }
            return Response(status: .ok, body: .init(data: try JSONSerialization.data(withJSONObject: one)))
        }
        app.get("json", "url", ":id") { req -> Response in
            state.withLockedValue { $0.clicks.append(req.parameters.get("id") ?? "") }
            return Response(status: .ok, body: .init(string: #"{"ok":true}"#))
        }
        }
        return PodcastSite(site: site, state: state)
    }

    private init(site: LocalSite, state: NIOLockedValueBox<State>) {
        self.site = site
        self.state = state
    }

    var url: URL { site.url }

    func feed(_ n: Int) -> String { url.appendingPathComponent("feeds/\(n).xml").absoluteString }

    /// A new episode at the top of feed `n` (its ETag changes).
    func publish(_ title: String, in n: Int) {
        state.withLockedValue { state in
            state.episodes[n, default: ["Only"]].append(title)
            state.version[n, default: 1] += 1
        }
    }

    var snapshot: State { state.withLockedValue { $0 } }

    func stop() async { await site.stop() }
}

/// Answers 500 to radio-browser questions asked of the server by the name "localhost".
struct BrokenServer: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if request.headers.first(name: .host)?.hasPrefix("localhost") == true, request.url.path.hasPrefix("/json/stations") || request.url.path.hasPrefix("/json/url") {
            return Response(status: .internalServerError)
        }
        return try await next.respond(to: request)
    }
}
