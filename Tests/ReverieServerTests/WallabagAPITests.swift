import Fluent
import Foundation
import ReverieAPI
@testable import ReverieServer
import SQLKit
import Testing
import Vapor

@Suite("Read-later apps: the wallabag API v2 over a person's articles, signed in as a client made in Settings → Apps", .serialized)
struct WallabagAPITests {
    static let page = """
        <html><head><title>Tide Tables – Coast Weekly</title></head><body><article><h1>Tide Tables</h1>
        <p>The tide turns twice a day, and the harbour master writes the times on a slate by the steps.</p>
        <p>Fishermen read it before dawn; the children read it after school, to know when the rock pools open.</p>
        <p>In spring the range is widest, and the sea goes out so far that the old wreck shows its ribs.</p></article></body></html>
        """

    static func form(_ fields: [String: String]) -> String {
        var components = URLComponents()
        components.queryItems = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        return components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
    }

    @Test("tokens by the password and refresh grants; entries added, listed, filtered, marked, tagged and deleted; another person's, a wrong secret and a revoked client refused",
          arguments: TestDatabase.all)
    func entries(database: TestDatabase) async throws {
        let site = try await LocalSite.start { app in
            app.get("tides.html") { _ in Response(status: .ok, headers: ["Content-Type": "text/html"], body: .init(string: Self.page)) }
        }
        do {
            try await withTestApp(database, adjust: { $0.allowPrivateFetches = true }) { client in
                let owner = try await client.setUpOwner()
                let bea = try await client.addUser("bea", by: owner)
                let made = try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "wallabag", name: "Share sheet"), auth: .cookie(bea))
                    .decode(CreatedApp.self)
                let clientID = try #require(made.clientId), clientSecret = try #require(made.clientSecret)
                let formType = "application/x-www-form-urlencoded"
                func token(_ fields: [String: String]) async throws -> TestClient.Reply {
                    try await client.send(.POST, "/oauth/v2/token", raw: Self.form(fields), contentType: formType)
                }
                // The account password, a wrong secret or another grant: OAuth's errors.
                let grant = ["grant_type": "password", "client_id": clientID, "client_secret": clientSecret, "username": "bea"]
                let accountPassword = try await token(grant.merging(["password": "another secret"]) { $1 })
                #expect(accountPassword.status == .badRequest && accountPassword.text.contains("invalid_grant"))
                #expect(try await token(grant.merging(["password": made.secret, "client_secret": "nope"]) { $1 }).status == .unauthorized)
                #expect(try await token(grant.merging(["password": made.secret, "grant_type": "client_credentials"]) { $1 }).status == .badRequest)
                let issued = try await token(grant.merging(["password": made.secret]) { $1 })
                #expect(issued.status == .ok, "\(issued.text)")
                let tokens = try JSONSerialization.jsonObject(with: issued.bytes) as! [String: Any]
                let access = try #require(tokens["access_token"] as? String)
                let refreshed = try await token(["grant_type": "refresh_token", "client_id": clientID, "client_secret": clientSecret,
                                                 "refresh_token": try #require(tokens["refresh_token"] as? String)])
                #expect(refreshed.status == .ok)
                let auth: TestClient.Auth = .bearer(access)

                // The page as the share sheet sends it, and one by its address.
                let sent = try await client.send(.POST, "/api/entries", raw: Self.form(["url": "https://coast.example/tides", "content": Self.page, "tags": "sea, tides"]),
                                                 contentType: formType, auth: auth)
                #expect(sent.status == .ok, "\(sent.text)")
                let entry = try JSONSerialization.jsonObject(with: sent.bytes) as! [String: Any]
                let id = try #require(entry["id"] as? Int)
                #expect(entry["title"] as? String == "Tide Tables" && (entry["content"] as? String)?.contains("<p>The tide turns") == true)
                #expect((entry["tags"] as? [[String: Any]])?.compactMap { $0["label"] as? String } == ["sea", "tides"] && entry["is_archived"] as? Int == 0)
                let fetched = try await client.send(.POST, "/api/entries", json: ["url": site.url.appendingPathComponent("tides.html").absoluteString], auth: auth)
                #expect(fetched.status == .ok, "\(fetched.text)")
                // The same address again is the same entry.
                let again = try await client.send(.POST, "/api/entries", json: ["url": "https://coast.example/tides"], auth: auth)
                #expect((try JSONSerialization.jsonObject(with: again.bytes) as? [String: Any])?["id"] as? Int == id)
                // Spaces as a form sends them (`+`), and the title the app gives is the article's.
                let plus = Self.form(["url": "https://coast.example/dawn", "title": "Dawn Tides", "content": Self.page]).replacingOccurrences(of: "%20", with: "+")
                #expect(try await client.send(.POST, "/api/entries", raw: plus, contentType: formType, auth: auth).status == .ok)
                // Reverie's Listen has all three, read as any article.
                let saved = try await client.send(.GET, "/api/articles", auth: .cookie(bea)).decode(ArticleList.self).items
                #expect(saved.count == 3 && saved.contains { $0.title == "Dawn Tides" })

                // Archived is finished; starred and the filters.
                #expect(try await client.send(.PATCH, "/api/entries/\(id)", raw: Self.form(["archive": "1", "starred": "1"]), contentType: formType, auth: auth).status == .ok)
                let finished = try await client.send(.GET, "/api/articles", auth: .cookie(bea)).decode(ArticleList.self).items.filter { $0.status == "finished" }
                #expect(finished.map(\.title) == ["Tide Tables"])
                func listed(_ query: String) async throws -> [Int] {
                    let page = try JSONSerialization.jsonObject(with: try await client.send(.GET, "/api/entries?\(query)", auth: auth).bytes) as! [String: Any]
                    return ((page["_embedded"] as? [String: Any])?["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                }
                let (archived, starred, unread, tagged) = (try await listed("archive=1"), try await listed("starred=1"), try await listed("archive=0"),
                                                           try await listed("tags=tides"))
                #expect(archived == [id] && starred == [id] && unread.count == 2 && tagged == [id])
                #expect(try await listed("perPage=2&page=2").count == 1)
                let exists = try JSONSerialization.jsonObject(with: try await client.send(.GET, "/api/entries/exists?url=https://coast.example/tides&return_id=1", auth: auth).bytes) as! [String: Any]
                #expect(exists["exists"] as? Int == id)
                #expect(try await client.send(.DELETE, "/api/entries/\(id)/tags/\(WallabagController.tagNumber("sea"))", auth: auth).status == .ok)
                let tags = try JSONSerialization.jsonObject(with: try await client.send(.GET, "/api/tags", auth: auth).bytes) as! [[String: Any]]
                #expect(tags.compactMap { $0["label"] as? String } == ["tides"])

                // Bad input: a flag that is not one, another person's entry, no token.
                #expect(try await client.send(.PATCH, "/api/entries/\(id)", raw: "archive=maybe", contentType: formType, auth: auth).status == .badRequest)
                let ownerApp = try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "wallabag", name: "Ada's"), auth: .cookie(owner)).decode(CreatedApp.self)
                let adaTokens = try JSONSerialization.jsonObject(with: try await token(["grant_type": "password", "client_id": ownerApp.clientId!, "client_secret": ownerApp.clientSecret!,
                                                                                       "username": "ada", "password": ownerApp.secret]).bytes) as! [String: Any]
                #expect(try await client.send(.GET, "/api/entries/\(id)", auth: .bearer(adaTokens["access_token"] as! String)).status == .notFound)
                let anonymous = try await client.send(.GET, "/api/entries")
                #expect(anonymous.status == .unauthorized && anonymous.text.contains("error_description"))
                // A gpodder app's password is no wallabag password.
                let podcastApp = try await client.send(.POST, "/api/apps", json: AppCreateRequest(kind: "gpodder", name: "AntennaPod"), auth: .cookie(bea)).decode(CreatedApp.self)
                #expect(try await token(grant.merging(["password": podcastApp.secret]) { $1 }).status == .badRequest)

                // Deleted, then the client revoked: its token stops at once.
                #expect(try await client.send(.DELETE, "/api/entries/\(id)", auth: auth).status == .ok)
                #expect(try await client.send(.GET, "/api/entries/\(id)", auth: auth).status == .notFound)
                #expect(try await client.send(.DELETE, "/api/apps/\(made.id.uuidString)", auth: .cookie(bea)).status == .noContent)
                #expect(try await client.send(.GET, "/api/entries", auth: auth).status == .unauthorized)
            }
        } catch {
            await site.stop()
            throw error
        }
        await site.stop()
    }
}
