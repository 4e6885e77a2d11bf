import Feeds
import Fluent
import Foundation
import SQLKit
import ReverieAPI
@testable import ReverieServer
import SharedCases
import Testing
import Vapor

@Suite("Podcast apps: app passwords (Settings → Apps) and the gpodder API v2 over subscriptions and the listening log", .serialized)
struct GpodderAPITests {
    static func basic(_ username: String, _ password: String) -> HTTPHeaders {
        ["Authorization": "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()]
    }

    static func json(_ reply: TestClient.Reply) throws -> Any {
        try JSONSerialization.jsonObject(with: reply.bytes)
    }

    static func connect(_ client: TestClient, _ cookie: String, name: String = "AntennaPod") async throws -> CreatedApp {
        let reply = try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "gpodder", name: name), auth: .cookie(cookie))
        #expect(reply.status == .created, "\(reply.text)")
        return try reply.decode(CreatedApp.self)
    }

    @Test("an app password works for its person and protocol only, stops at once when revoked, and goes with its person", arguments: TestDatabase.all)
    func appPasswords(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let bea = try await client.addUser("bea", password: "bea's own secret", by: owner)
            #expect(try await client.send(.GET, "/api/apps", auth: .cookie(bea)).decode([AppInfo].self) == [])
            let made = try await Self.connect(client, bea, name: "AntennaPod on my phone")
            #expect(made.username == "bea" && made.secret.count == 29 && made.app.prefix == String(made.secret.prefix(5)))
            #expect(made.server.hasPrefix("http://"))
            // Not yet served, or not a kind at all; a name is needed.
            #expect(try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "subsonic", name: "Amperfy"), auth: .cookie(bea)).status == .unprocessableEntity)
            #expect(try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "ftp", name: "x"), auth: .cookie(bea)).status == .badRequest)
            #expect(try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "gpodder", name: "  "), auth: .cookie(bea)).status == .badRequest)
            // Only its hash is kept (a gpodder app needs nothing more), so a copy of the database or a
            // backup has nothing to read.
            let sql = try #require(client.app.db as? any SQLDatabase)
            let stored = try #require(try await sql.raw("SELECT sealed_secret, secret_hash FROM apps").first())
            #expect(try stored.decode(column: "sealed_secret", as: String.self) == "")
            #expect(try stored.decode(column: "secret_hash", as: String.self) == TokenSecret.hash(made.secret))
            // The key seals and opens what Subsonic's sign-in will need.
            let passwords = AppPasswords(dataDirectory: client.config!.dataDirectory)
            let sealed = try passwords.seal(made.secret)
            #expect(!sealed.contains(made.secret) && passwords.open(sealed) == made.secret)

            let path = "/api/2/subscriptions/bea.json"
            #expect(try await client.send(.GET, path, headers: Self.basic("bea", made.secret)).status == .ok)
            #expect(try await client.send(.GET, path, headers: Self.basic("BEA", made.secret)).status == .ok)
            // The account password, a wrong one, another person's name, or none: 401 with a Basic challenge.
            for headers in [Self.basic("bea", "bea's own secret"), Self.basic("bea", "wrong"), Self.basic("ada", made.secret), HTTPHeaders()] {
                let refused = try await client.send(.GET, path, headers: headers)
                #expect(refused.status == .unauthorized && refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Basic") == true)
            }
            // Another person's address, with bea's own password.
            #expect(try await client.send(.GET, "/api/2/subscriptions/ada.json", headers: Self.basic("bea", made.secret)).status == .unauthorized)
            // The password is not a web session or a personal token.
            #expect(try await client.send(.GET, "/api/podcasts", auth: .bearer(made.secret)).status == .unauthorized)

            // A login's cookie signs in until the app is revoked.
            let login = try await client.send(.POST, "/api/2/auth/bea/login.json", headers: Self.basic("bea", made.secret))
            #expect(login.status == .ok)
            let session = try #require(login.headers[.setCookie].first { $0.hasPrefix("sessionid=") }.map { String($0.dropFirst(10).prefix { $0 != ";" }) })
            #expect(try await client.send(.GET, path, headers: ["Cookie": "sessionid=\(session)"]).status == .ok)
            let listed = try await client.send(.GET, "/api/apps", auth: .cookie(bea)).decode([AppInfo].self)
            #expect(listed.count == 1 && listed[0].lastUsedAt != nil && listed[0].lastAction != nil)
            // Ada cannot revoke bea's app.
            #expect(try await client.send(.DELETE, "/api/apps/\(made.id.uuidString)", auth: .cookie(owner)).status == .notFound)
            #expect(try await client.send(.DELETE, "/api/apps/\(made.id.uuidString)", auth: .cookie(bea)).status == .noContent)
            #expect(try await client.send(.GET, path, headers: Self.basic("bea", made.secret)).status == .unauthorized)
            #expect(try await client.send(.GET, path, headers: ["Cookie": "sessionid=\(session)"]).status == .unauthorized)

            // Removing a person removes their apps.
            let again = try await Self.connect(client, bea)
            let beaID = try #require(try await client.app.services.users.outside.find(username: "bea")).id
            #expect(try await client.send(.DELETE, "/api/users/\(beaID.uuidString)", auth: .cookie(owner)).status == .noContent)
            #expect(try await client.send(.GET, path, headers: Self.basic("bea", again.secret)).status == .unauthorized)
            #expect(try await sql.raw("SELECT count(*) AS n FROM apps").first()?.decode(column: "n", as: Int.self) == 0)
        }
    }

    @Test("subscriptions both ways with since, episode actions as the listening log both ways, an unknown episode's action kept for its feed's refresh",
          arguments: TestDatabase.all)
    func subscriptionsAndActions(database: TestDatabase) async throws {
        try await PodcastAPITests.withSite { site in
            try await withTestApp(database, adjust: PodcastAPITests.adjust(site)) { client in
                let owner = try await client.setUpOwner()
                let bea = try await client.addUser("bea", by: owner)
                let app = try await Self.connect(client, bea)
                let auth = Self.basic("bea", app.secret)
                // Subscribed in Reverie: the phone hears of it.
                let podcast = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea))
                    .decode(PodcastInfo.self)
                let first = try Self.json(try await client.send(.GET, "/api/2/subscriptions/bea/phone.json", headers: auth)) as! [String: Any]
                #expect(first["add"] as? [String] == [site.feed(1)] && first["remove"] as? [String] == [])
                let since = try #require(first["timestamp"] as? Int)

                // The phone adds a feed (one written as feed:, one not an address) and removes the first.
                let upload = try await client.send(.POST, "/api/2/subscriptions/bea/phone.json", headers: auth, body: """
                    {"add": ["feed:\(site.feed(2))", "not an address"], "remove": ["\(site.feed(1))"]}
                    """)
                #expect(upload.status == .ok, "\(upload.text)")
                let uploaded = try Self.json(upload) as! [String: Any]
                #expect((uploaded["update_urls"] as? [[String]])?.sorted { $0[0] < $1[0] } == [["feed:\(site.feed(2))", site.feed(2)], ["not an address", ""]])
                let list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                #expect(list.podcasts.map(\.id) != [podcast.id] && list.podcasts.count == 1)
                // The laptop, since the phone's first look: the change, said as things are now.
                let laptop = try Self.json(try await client.send(.GET, "/api/2/subscriptions/bea/laptop.json?since=\(since)", headers: auth)) as! [String: Any]
                #expect(laptop["add"] as? [String] == [site.feed(2)] && laptop["remove"] as? [String] == [site.feed(1)])
                let devices = try Self.json(try await client.send(.GET, "/api/2/devices/bea.json", headers: auth)) as! [[String: Any]]
                #expect(devices.compactMap { $0["id"] as? String } == ["laptop", "phone"])
                // A `since` past what the log can count (the year 2255): 400, not a trap.
                #expect(try await client.send(.GET, "/api/2/episodes/bea.json?since=99999999999", headers: auth).status == .badRequest)
                #expect(try await client.send(.GET, "/api/2/episodes/bea.json?since=9000000000", headers: auth).status == .ok)
                // Bad device ids and bodies: 400, nothing changed.
                #expect(try await client.send(.GET, "/api/2/subscriptions/bea/a%20b.json", headers: auth).status == .badRequest)
                #expect(try await client.send(.POST, "/api/2/subscriptions/bea/phone.json", headers: auth, body: #"{"add": ["x"], "remove": ["x"]}"#).status == .badRequest)

                // Back on feed 1 in Reverie, so its episodes are known.
                _ = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea))
                let detail = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                let one = try #require(detail.podcasts.first { $0.feedURL == site.feed(1) })
                let episodes = try await client.send(.GET, "/api/podcasts/\(one.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes
                let owls = try #require(episodes.first { $0.title == "Owls" })
                let moths = try #require(episodes.first { $0.title == "Moths" })
                // A play on the phone is Reverie's place; a delete is a played mark.
                let stamp = GpodderSync.format(Date())
                let actions = """
                    [{"podcast": "\(site.feed(1))", "episode": "\(try #require(owls.enclosureURL))", "device": "phone", "action": "play",
                      "timestamp": "\(stamp)", "started": 0, "position": 4, "total": 6},
                     {"podcast": "\(site.feed(1))", "episode": "\(try #require(moths.enclosureURL))", "device": "phone", "action": "delete", "timestamp": "\(stamp)"},
                     {"podcast": "\(site.feed(3))", "episode": "\(site.url.absoluteString)/audio/chaptered.mp3", "device": "phone", "action": "play",
                      "timestamp": "\(stamp)", "started": 0, "position": 3, "total": 6}]
                    """
                let sent = try await client.send(.POST, "/api/2/episodes/bea.json", headers: auth, body: actions)
                #expect(sent.status == .ok, "\(sent.text)")
                let afterPhone = try #require((try Self.json(sent) as! [String: Any])["timestamp"] as? Int)
                let owlsNow = try await client.send(.GET, "/api/episodes/\(owls.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                let mothsNow = try await client.send(.GET, "/api/episodes/\(moths.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(owlsNow.position == 4 && !owlsNow.played && mothsNow.played)

                // Listening in Reverie goes back to the apps as a play action.
                let item = ItemKey(.podcast, UUID(uuidString: owls.id)!).text
                let event = ProgressEventInput(id: "web-1", item: item, device: "web", at: client.clock.now, position: 5, kind: "pause")
                #expect(try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [event]), auth: .cookie(bea)).status == .ok)
                let read = try Self.json(try await client.send(.GET, "/api/2/episodes/bea.json?since=\(afterPhone)", headers: auth)) as! [String: Any]
                let back = try #require(read["actions"] as? [[String: Any]])
                let web = try #require(back.first { $0["device"] as? String == "web" })
                #expect(web["action"] as? String == "play" && web["position"] as? Int == 5 && web["total"] as? Int == 6 && web["episode"] as? String == owls.enclosureURL)
                // The phone's own actions are not sent back twice as Reverie's.
                #expect(back.filter { $0["device"] as? String == "phone" }.count <= 3)
                let everything = try Self.json(try await client.send(.GET, "/api/2/episodes/bea.json", headers: auth)) as! [String: Any]
                #expect((everything["actions"] as? [[String: Any]])?.count == 4)
                let latest = try Self.json(try await client.send(.GET, "/api/2/episodes/bea.json?aggregated=true&podcast=\(site.feed(1))", headers: auth)) as! [String: Any]
                let aggregated = try #require(latest["actions"] as? [[String: Any]])
                #expect(aggregated.count == 2 && aggregated.contains { $0["device"] as? String == "web" })

                // Feed 3 was not known: its action waits for the feed, subscribed from the phone and read by the schedule.
                #expect(try await client.send(.POST, "/api/2/subscriptions/bea/phone.json", headers: auth, body: #"{"add": ["\#(site.feed(3))"]}"#).status == .ok)
                client.app.jobs.start()
                let three = try await eventually("feed 3 read and its episode's place written") { () -> EpisodeInfo? in
                    let podcasts = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self).podcasts
                    guard let show = podcasts.first(where: { $0.feedURL == site.feed(3) }) else { return nil }
                    let episodes = try await client.send(.GET, "/api/podcasts/\(show.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes
                    return episodes.first { $0.position == 3 }
                }
                #expect(three.position == 3)

                // A batch past the limit is refused whole.
                let many = "[" + Array(repeating: #"{"podcast": "https://a.example/f", "episode": "https://a.example/e.mp3", "action": "download"}"#,
                                       count: GpodderSync.maxBatch + 1).joined(separator: ",") + "]"
                let refused = try await client.send(.POST, "/api/2/episodes/bea.json", headers: auth, body: many)
                #expect(refused.status == .badRequest && refused.error?.message.contains("At most") == true)
                let sql = try #require(client.app.db as? any SQLDatabase)
                #expect(try await sql.raw("SELECT count(*) AS n FROM episode_actions").first()?.decode(column: "n", as: Int.self) == 3)
            }
        }
    }
}

extension GpodderAPITests {
    /// AntennaPod's "Nextcloud" sync, as its source sends it: Login Flow v2 (a POST with no body,
    /// a browser opening `login`, form-encoded polls), then gpoddersync's routes with Basic auth,
    /// episode actions without a device and `since` in seconds.
    @Test("Nextcloud's login flow gives the app a password once the person approves, and gpoddersync's routes share the log", arguments: TestDatabase.all)
    func nextcloud(database: TestDatabase) async throws {
        try await PodcastAPITests.withSite { site in
            try await withTestApp(database, adjust: PodcastAPITests.adjust(site)) { client in
                let owner = try await client.setUpOwner()
                let bea = try await client.addUser("bea", by: owner)
                let started = try await client.send(.POST, "/index.php/login/v2", headers: ["User-Agent": "AntennaPod/3.5.0", "Host": "reverie.home:8443"])
                #expect(started.status == .ok, "\(started.text)")
                let flow = try Self.json(started) as! [String: Any]
                let poll = try #require(flow["poll"] as? [String: String])
                let login = try #require(flow["login"] as? String)
                #expect(poll["endpoint"] == "http://reverie.home:8443/index.php/login/v2/poll" && login.hasPrefix("http://reverie.home:8443/index.php/login/v2/flow/"))
                let token = try #require(poll["token"])
                let pollBody = "token=\(token)"
                // Not approved yet: 404, as Nextcloud answers.
                #expect(try await client.send(.POST, "/index.php/login/v2/poll", headers: [:], body: pollBody).status == .notFound)
                // The browser lands in Settings, where the signed-in person approves.
                let path = String(login.dropFirst("http://reverie.home:8443".count))
                let opened = try await client.send(.GET, path)
                #expect(opened.status == .seeOther && opened.headers.first(name: .location)?.hasPrefix("/settings?connect=") == true)
                let flowToken = String(path.split(separator: "/").last!)
                #expect(try await client.send(.GET, "/api/apps/login-flows/\(flowToken)").status == .unauthorized)
                let shown = try await client.send(.GET, "/api/apps/login-flows/\(flowToken)", auth: .cookie(bea)).decode(AppLoginFlow.self)
                #expect(shown.name == "AntennaPod/3.5.0")
                let approved = try await client.send(.POST, "/api/apps/login-flows/\(flowToken)", auth: .cookie(bea))
                #expect(try approved.status == .created && approved.decode(AppInfo.self).kind == .gpodder)
                #expect(try await client.send(.POST, "/api/apps/login-flows/\(flowToken)", auth: .cookie(bea)).status == .notFound)
                let collected = try await client.send(.POST, "/index.php/login/v2/poll", headers: [:], body: pollBody)
                #expect(collected.status == .ok)
                let credentials = try Self.json(collected) as! [String: String]
                #expect(credentials["loginName"] == "bea" && credentials["appPassword"]?.count == 29)
                // Given once.
                #expect(try await client.send(.POST, "/index.php/login/v2/poll", headers: [:], body: pollBody).status == .notFound)
                let auth = Self.basic("bea", try #require(credentials["appPassword"]))

                // Subscriptions and episode actions, as AntennaPod's Nextcloud service sends them.
                let change = try await client.send(.POST, "/index.php/apps/gpoddersync/subscription_change/create", headers: auth,
                                                   body: #"{"add": ["\#(site.feed(1))"], "remove": []}"#)
                #expect(try change.status == .ok && (Self.json(change) as! [String: Any])["timestamp"] is Int)
                let subscriptions = try Self.json(try await client.send(.GET, "/index.php/apps/gpoddersync/subscriptions?since=0", headers: auth)) as! [String: Any]
                #expect(subscriptions["add"] as? [String] == [site.feed(1)])
                let podcast = try #require(try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self).podcasts.first)
                client.app.jobs.start()
                let owls = try await eventually("feed 1 read") { () -> EpisodeInfo? in
                    try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes.first { $0.title == "Owls" }
                }
                let action = """
                    [{"podcast": "\(site.feed(1))", "episode": "\(try #require(owls.enclosureURL))", "guid": "ep-1-0", "action": "play",
                      "timestamp": "\(GpodderSync.format(Date()))", "started": 0, "position": 2, "total": 6}]
                    """
                let sent = try await client.send(.POST, "/index.php/apps/gpoddersync/episode_action/create", headers: auth, body: action)
                #expect(sent.status == .ok, "\(sent.text)")
                #expect(try await client.send(.GET, "/api/episodes/\(owls.id)", auth: .cookie(bea)).decode(EpisodeInfo.self).position == 2)
                let read = try Self.json(try await client.send(.GET, "/index.php/apps/gpoddersync/episode_action?since=0", headers: auth)) as! [String: Any]
                let actions = try #require(read["actions"] as? [[String: Any]])
                #expect(actions.count == 1 && actions[0]["action"] as? String == "PLAY" && actions[0]["position"] as? Int == 2 && actions[0]["guid"] as? String == "ep-1-0")
                #expect(actions[0]["device"] as? String == "antennapod-3-5-0")
                // Wrong or no password: 401.
                #expect(try await client.send(.GET, "/index.php/apps/gpoddersync/subscriptions", headers: Self.basic("bea", "nope")).status == .unauthorized)
                #expect(try await client.send(.GET, "/index.php/apps/gpoddersync/subscriptions").status == .unauthorized)
            }
        }
    }
}

extension TestClient {
    /// A request with a raw body and no JSON content type, as mygpoclient sends them.
    func send(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders, body: String) async throws -> Reply {
        try await send(method, path, raw: body, contentType: "application/x-www-form-urlencoded", headers: headers)
    }
}
