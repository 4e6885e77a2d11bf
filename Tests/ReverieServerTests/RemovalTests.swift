import FluentSQL
import Foundation
@testable import ReverieServer
import ReverieAPI
import Testing
import Vapor

@Suite("A removed person leaves nothing: every table and folder is someone's, the server's, or shared, and theirs goes", .serialized)
struct RemovalTests {
    /// Every table the database has, as the database itself lists them.
    static func tables(_ sql: any SQLDatabase, _ database: TestDatabase) async throws -> Set<String> {
        let query: SQLQueryString = switch database {
        case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        case .postgres: "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()"
        }
        return Set(try await sql.raw(query).all().map { try $0.decode(column: "name", as: String.self) })
    }

    /// The folders under `<data>/media` and `<data>/cache`, as `media/library`.
    static func folders(_ data: String) -> Set<String> {
        var found = Set<String>()
        for top in ["media", "cache"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(data)/\(top)")) ?? []
            for name in names {
                var folder: ObjCBool = false
                if FileManager.default.fileExists(atPath: "\(data)/\(top)/\(name)", isDirectory: &folder), folder.boolValue { found.insert("\(top)/\(name)") }
            }
        }
        return found
    }

    static func files(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }
    }

    @Test("every table in the database is in PersonalData's lists, once, and every listed one exists", arguments: TestDatabase.all)
    func everyTableIsSomeones(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let sql = try #require(client.app.db as? any SQLDatabase)
            let listed = PersonalData.tables + PersonalData.sharedTables + PersonalData.serverTables
            #expect(Set(listed).count == listed.count, "a table is listed twice")
            var known = try await Self.tables(sql, database)
            // SQLite's FTS5 keeps its index in shadow tables; PostgreSQL searches another way.
            if case .postgres = database { known.formUnion(listed.filter { $0.hasPrefix("compositions_fts") || $0 == "composition_search_keys" }) }
            #expect(known.subtracting(listed).sorted() == [], "tables no list in PersonalData names: say whose rows they hold")
            #expect(Set(listed).subtracting(known).sorted() == [], "PersonalData names tables the database does not have")
        }
    }

    @Test("one of everything: the person's rows, downloads, library files and what was made from them go; a podcast only they followed goes, with its kept cover; what others use stays",
          arguments: TestDatabase.all)
    func oneOfEverything(database: TestDatabase) async throws {
        try await PodcastAPITests.withSite { site in
            try await withTestApp(database, adjust: PodcastAPITests.adjust(site)) { client in
                client.app.jobs.start()
                let ada = try await client.setUpOwner()
                let bea = try await client.addUser("bea", by: ada)
                let config = client.app.services.config
                // Podcasts: one only she follows, with a download; one ada follows too.
                let hers = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea)).decode(PodcastInfo.self)
                _ = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(2)), auth: .cookie(bea))
                let shared = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(2)), auth: .cookie(ada)).decode(PodcastInfo.self)
                let episode = try #require(try await client.send(.GET, "/api/podcasts/\(hers.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes.first)
                let queued = try await client.send(.POST, "/api/episodes/\(episode.id)/download", json: EpisodeDownloadRequest(trimSilence: false), auth: .cookie(bea))
                let job = try #require(try queued.decode(EpisodeInfo.self).download?.jobID)
                #expect(try await PodcastAPITests.waitForJob(job, client, bea).status == "done")
                #expect(try await client.send(.GET, "/api/episodes/\(episode.id)/audio?until=2.0", auth: .cookie(bea)).status == .ok)
                // A song in her library only she has, and its sleep-timer rendition.
                let song = try await LibraryAPITests.audioFile("hers.mp3", seconds: 3, title: "Only Hers", frequency: 523)
                let item = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mpeg", auth: .cookie(bea)).decode(LibraryUploadResult.self).item
                #expect(try await client.send(.GET, "/api/library/\(item.id)/audio?until=1.5", auth: .cookie(bea)).status == .ok)
                // Progress, a setting, a token.
                let heard = ProgressEventsRequest(events: [ProgressEventInput(id: UUID().uuidString, item: "library:\(item.id)", device: "phone",
                                                                              at: client.clock.now, position: 1, kind: "pause")])
                #expect(try await client.send(.POST, "/api/progress/events", json: heard, auth: .cookie(bea)).status == .ok)
                _ = try await client.send(.PATCH, "/api/settings", json: ["theme": "PlainLight"], auth: .cookie(bea))
                _ = try await client.send(.POST, "/api/tokens", json: ["name": "script"], auth: .cookie(bea))
                // Her Up Next and a list of her own.
                let upNext = try #require(try await client.send(.GET, "/api/queues", auth: .cookie(bea)).decode(QueueList.self).queues.first)
                #expect(try await client.send(.POST, "/api/queues/\(upNext.id)/entries", json: QueueAddRequest(item: "podcast:\(episode.id)"), auth: .cookie(bea)).status == .created)
                #expect(try await client.send(.POST, "/api/queues", json: QueueNameRequest(name: "Bedtime"), auth: .cookie(bea)).status == .created)

                // Covers and a station's icon, kept as she looked at them: her podcast's, the
                // shared one's, the icon of a station only she keeps and one ada keeps too.
                let kept = try await client.send(.PUT, "/api/radio/favourites/\(PodcastSite.hlsStationID)", auth: .cookie(bea)).decode(RadioStationList.self)
                _ = try await client.send(.PUT, "/api/radio/favourites/\(PodcastSite.hlsStationID)", auth: .cookie(ada))
                #expect(try await client.send(.PUT, "/api/radio/favourites/\(PodcastSite.stationID)", auth: .cookie(bea)).status == .ok)
                let pictures = [hers.image, shared.image, kept.stations.first?.favicon].compactMap { $0 }
                #expect(pictures.count == 3 && Set(pictures).count == 3, "\(pictures)")
                for address in pictures {
                    let picture = try await client.send(.GET, "/api/artwork?url=\(address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? address)", auth: .cookie(bea))
                    #expect(picture.headers.contentType == .jpeg, "\(address)")
                }
                let artwork = config.cacheDirectory("artwork")
                #expect(Self.files(artwork).count == 3)

                let downloads = config.mediaDirectory("podcasts"), library = config.mediaDirectory("library")
                let renditions = config.cacheDirectory("renditions")
                #expect(Self.files(downloads).count == 1 && Self.files(library).count == 1 && Self.files(renditions).count == 2)
                // Every folder a feature made is in PersonalData's lists.
                let listed = Set(PersonalData.personalFolders + PersonalData.sharedFolders + PersonalData.serverFolders)
                #expect(Self.folders(config.dataDirectory).subtracting(listed).sorted() == [], "folders no list in PersonalData names")

                let users = try await client.send(.GET, "/api/users", auth: .cookie(ada)).decode([UserInfo].self)
                let beaID = try #require(users.first { $0.username == "bea" }?.id)
                #expect(try await client.send(.DELETE, "/api/users/\(beaID)", auth: .cookie(ada)).status == .noContent)

                let sql = try #require(client.app.db as? any SQLDatabase)
                for table in PersonalData.tables {
                    let rows = try await sql.raw("SELECT count(*) AS rows FROM \(ident: table) WHERE owner_id = \(bind: beaID)").first()?
                        .decode(column: "rows", as: Int.self)
                    #expect(rows == 0, "\(table) still holds her rows")
                }
                // The podcast only she followed is gone, with its episodes; ada's stays.
                let podcasts = try await sql.raw("SELECT feed_url FROM podcasts").all().map { try $0.decode(column: "feed_url", as: String.self) }
                #expect(podcasts == [site.feed(2)])
                let orphans = try await sql.raw("SELECT count(*) AS rows FROM podcast_episodes WHERE podcast_id = \(bind: UUID(uuidString: hers.id)!)").first()?
                    .decode(column: "rows", as: Int.self)
                #expect(orphans == 0)
                #expect(try await client.send(.GET, "/api/podcasts/\(shared.id)", auth: .cookie(ada)).status == .ok)
                // Her download, her library file and what was made from them are gone.
                #expect(Self.files(downloads) == [] && Self.files(library) == [] && Self.files(renditions) == [])
                // Her podcast's cover is let go; the shared podcast's and the station's that ada keeps too stay.
                let stay = [shared.image, kept.stations.first?.favicon].compactMap { $0 }.map { "\(ArtworkStore.name(of: $0)).jpg" }
                #expect(Self.files(artwork).sorted() == stay.sorted())
            }
        }
    }
}
