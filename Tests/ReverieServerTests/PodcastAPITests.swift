import AudioRender
import Fluent
import Feeds
import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor
import SharedCases

@Suite("Podcasts and radio: search, subscribe, refresh, downloads levelled with chapters and transcripts, played marks, OPML, radio-browser", .serialized)
struct PodcastAPITests {
    static func withSite(_ body: (PodcastSite) async throws -> Void) async throws {
        let tone = try await LibraryAPITests.audioFile("tone.mp3", seconds: 6, title: "Tone", frequency: 300)
        let chaptered = try await LibraryAPITests.audioFile("chaptered.mp3", seconds: 6, title: "Chaptered", chapters: [("Opening", 0), ("Owls", 2_500)], frequency: 350)
        let site = try await PodcastSite.start(audio: tone, chaptered: chaptered)
        do { try await body(site) } catch { await site.stop(); throw error }
        await site.stop()
    }

    static func adjust(_ site: PodcastSite) -> (inout ServerConfig) -> Void {
        { config in
            config.allowPrivateFetches = true
            config.itunesBaseURL = site.url.appendingPathComponent("itunes")
            config.podcastIndexBaseURL = site.url.appendingPathComponent("pi")
            config.radioBrowserBaseURL = site.url
        }
    }

    static func waitForJob(_ id: String, _ client: TestClient, _ cookie: String) async throws -> JobInfo {
        try await eventually("job \(id) finishing") {
            let job = try await client.send(.GET, "/api/jobs/\(id)", auth: .cookie(cookie)).decode(JobInfo.self)
            return job.status == "done" || job.status == "failed" ? job : nil
        }
    }

    @Test("find by name (iTunes, and Podcast Index once the owner gives a key), subscribe, new episodes with a badge, 304 refreshes, back-off with the error shown, favourites, OPML out and in",
          arguments: TestDatabase.all)
    func findSubscribeRefresh(database: TestDatabase) async throws {
        try await Self.withSite { site in
            try await withTestApp(database, adjust: Self.adjust(site)) { client in
                let owner = try await client.setUpOwner()
                let bea = try await client.addUser("bea", by: owner)
                // iTunes alone: the Apple-only result (no feed) is left out.
                let found = try await client.send(.GET, "/api/podcasts/search?q=owls", auth: .cookie(bea)).decode(PodcastSearchResult.self)
                #expect(found.results.map(\.title) == ["Night Owls 1"] && found.results[0].episodeCount == 2 && found.results[0].author == "Ann Host")
                #expect(found.results[0].artwork == site.url.appendingPathComponent("art.jpg").absoluteString && found.problems.isEmpty)
                // Only the owner sets Podcast Index's key; then search asks it too, signed.
                #expect(try await client.send(.PUT, "/api/podcasts/podcastindex", json: PodcastIndexCredentialsRequest(key: "K", secret: "S"), auth: .cookie(bea)).status == .forbidden)
                let saved = try await client.send(.PUT, "/api/podcasts/podcastindex", json: PodcastIndexCredentialsRequest(key: "KEY1", secret: "SECRET"), auth: .cookie(owner))
                #expect(try saved.decode(PodcastIndexSettings.self) == PodcastIndexSettings(configured: true, key: "KEY1"))
                let both = try await client.send(.GET, "/api/podcasts/search?q=owls", auth: .cookie(bea)).decode(PodcastSearchResult.self)
                #expect(both.results.map(\.title) == ["Night Owls 1", "Owl Hour"] && both.results[1].source == "podcastindex" && both.results[1].author == nil)
                let auth = site.snapshot.podcastIndexAuth
                #expect(auth[0] == "KEY1" && auth[2] == PodcastDirectory.signature(.init(key: "KEY1", secret: "SECRET"), time: auth[1]))
                #expect(!(try await client.send(.GET, "/api/podcasts/podcastindex", auth: .cookie(bea)).text.contains("SECRET")))

                // Subscribe: read at once; a second time is no new subscription.
                let made = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea))
                #expect(made.status == .created, "\(made.text)")
                let podcast = try made.decode(PodcastInfo.self)
                #expect(podcast.title == "Night Owls 1" && podcast.episodeCount == 2 && podcast.newEpisodes == 0 && podcast.author == "Ann Host")
                #expect(try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea)).status == .ok)
                var detail = try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(bea)).decode(PodcastDetail.self)
                #expect(detail.episodes.map(\.title) == ["Moths", "Owls"] && detail.episodes[0].hasChapters && detail.episodes[0].hasTranscript)
                #expect(detail.episodes.allSatisfy { !$0.isNew && !$0.played && $0.download == nil })
                // Another person cannot see it by id.
                #expect(try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(owner)).status == .notFound)
                #expect(try await client.send(.GET, "/api/episodes/\(detail.episodes[0].id)", auth: .cookie(owner)).status == .notFound)

                // Refresh: unchanged is a 304; a new episode comes with a badge until seen.
                let row = try #require(try await FluentPodcastRepository(database: client.app.db).podcast(feedURL: site.feed(1)))
                let outcome = try await FeedRefresh.refresh(row, repository: FluentPodcastRepository(database: client.app.db), client: client.app.outside, interval: 3600, now: Date())
                #expect(outcome == FeedRefresh.Outcome(notModified: true, added: 0) && site.snapshot.notModified == 1)
                site.publish("Bats", in: 1)
                client.clock.advance(by: 60)
                let refreshJob = try await client.send(.POST, "/api/podcasts/\(podcast.id)/refresh", auth: .cookie(bea)).decode(JobInfo.self)
                client.app.jobs.start()
                #expect(try await Self.waitForJob(refreshJob.id, client, bea).status == "done")
                var list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                #expect(list.podcasts.map(\.newEpisodes) == [1] && list.podcasts[0].episodeCount == 3)
                detail = try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(bea)).decode(PodcastDetail.self)
                #expect(detail.episodes.map(\.title) == ["Bats", "Moths", "Owls"] && detail.episodes.map(\.isNew) == [true, false, false])
                _ = try await client.send(.POST, "/api/podcasts/\(podcast.id)/seen", auth: .cookie(bea))
                list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                #expect(list.podcasts.map(\.newEpisodes) == [0])

                // Bad addresses say what is wrong; a feed that starts failing backs off and says why.
                #expect(try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: "ftp://x/feed"), auth: .cookie(bea)).status == .badRequest)
                let notFeed = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(98)), auth: .cookie(bea))
                #expect(notFeed.status == .unprocessableEntity && notFeed.error?.message.contains("not a feed") == true, "\(notFeed.text)")
                // A feed as some hosts publish it is read with repairs, and its page says which.
                let repaired = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(97)), auth: .cookie(bea))
                #expect(repaired.status == .created, "\(repaired.text)")
                let salt = try repaired.decode(PodcastInfo.self)
                #expect(salt.title == "Salt & Night" && salt.feedRepairs == [FeedRepair.leadingText.rawValue, FeedRepair.bareAmpersands.rawValue])
                let saltTitles = try await client.send(.GET, "/api/podcasts/\(salt.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes.map { $0.title ?? "(none)" }
                #expect(saltTitles.sorted() == ["(none)", "Fish & Moths"], "\(saltTitles)")
                #expect(podcast.feedRepairs.isEmpty)
                #expect(try await client.send(.DELETE, "/api/podcasts/\(salt.id)", auth: .cookie(bea)).status == .noContent)
                var failing = try #require(try await FluentPodcastRepository(database: client.app.db).podcast(feedURL: site.feed(1)))
                failing.feedURL = site.feed(99)
                failing.etag = nil
                try await FluentPodcastRepository(database: client.app.db).save(failing)
                let now = Date()
                for failures in 1...3 {
                    let before = failing
                    await #expect(throws: OutsideFetchError.self) {
                        try await FeedRefresh.refresh(before, repository: FluentPodcastRepository(database: client.app.db), client: client.app.outside, interval: 3600, now: now)
                    }
                    // The refresh saved the failure and the back-off; the value it was given is unchanged.
                    failing = try #require(try await FluentPodcastRepository(database: client.app.db).podcast(before.id))
                    #expect(failing.failures == failures && abs(failing.nextRefreshAt.timeIntervalSince(now) - 3600 * pow(2, Double(failures))) < 1)
                    #expect(failing.lastError?.contains("500") == true && before.failures == failures - 1)
                }
                list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                #expect(list.podcasts[0].lastError?.contains("500") == true, "\(list.podcasts[0].lastError ?? "")")

                // Favourites first; OPML out and back in (to another person).
                let second = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(2)), auth: .cookie(bea)).decode(PodcastInfo.self)
                _ = try await client.send(.PATCH, "/api/podcasts/\(second.id)", json: PodcastUpdateRequest(favourite: true, deleteAfterPlayed: nil), auth: .cookie(bea))
                list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                #expect(list.podcasts.map(\.title) == ["Night Owls 2", "Night Owls 1"] && list.podcasts.map(\.favourite) == [true, false])
                let opml = try await client.send(.GET, "/api/podcasts/opml", auth: .cookie(bea))
                #expect(opml.headers.first(name: .contentType)?.hasPrefix("text/x-opml") == true && opml.text.contains(site.feed(2)))
                let imported = try await client.send(.POST, "/api/podcasts/opml", raw: opml.text, contentType: "text/x-opml", auth: .cookie(owner))
                let result = try imported.decode(OPMLImportResult.self)
                #expect(result.added == 2 && result.alreadySubscribed == 0 && Set(result.podcasts.map(\.title)) == ["Night Owls 1", "Night Owls 2"])
                let hostile = #"<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY x SYSTEM "file:///etc/passwd">]><opml><body><outline xmlUrl="&x;"/></body></opml>"#
                let refused = try await client.send(.POST, "/api/podcasts/opml", raw: hostile, contentType: "text/x-opml", auth: .cookie(owner))
                #expect(refused.status == .unprocessableEntity && refused.error?.message.contains("entities") == true)
                // Unsubscribing: gone from the list, its id not found.
                #expect(try await client.send(.DELETE, "/api/podcasts/\(second.id)", auth: .cookie(bea)).status == .noContent)
                #expect(try await client.send(.GET, "/api/podcasts/\(second.id)", auth: .cookie(bea)).status == .notFound)
                await client.app.jobs.stop()
            }
        }
    }

    @Test("a download comes back levelled with the feed's chapters and transcript; played at 95% or a natural end; deleted once played when asked; an interrupted download resumes with Range")
    func downloadListenPlayed() async throws {
        try await Self.withSite { site in
            try await withTestApp(.sqlite, adjust: Self.adjust(site)) { client in
                let bea = try await client.setUpOwner("bea")
                client.app.jobs.start()
                let podcast = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea)).decode(PodcastInfo.self)
                let episodes = try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes
                let moths = try #require(episodes.first { $0.title == "Moths" }), owls = try #require(episodes.first { $0.title == "Owls" })

                // Streams before it is downloaded, with Range.
                let streamed = try await client.send(.GET, "/api/episodes/\(moths.id)/audio", auth: .cookie(bea), headers: ["Range": "bytes=0-99"])
                #expect(streamed.status == .partialContent && streamed.bytes.count == 100)
                // Joined before it is downloaded: an MP3 on the feed's server, read through the guard (issue 46).
                let joined = try await client.send(.GET, "/api/streams?parts=podcast:\(moths.id)", auth: .cookie(bea)).decode(JoinedStreamInfo.self)
                #expect(joined.parts.count == 1 && abs(joined.duration - 6) < 0.2 && joined.stopReason == nil, "\(joined)")
                let joinedAudio = try await client.send(.GET, joined.audioURL, auth: .cookie(bea), headers: ["Range": "bytes=0-3839"])
                #expect(joinedAudio.status == .partialContent && JoinedStream.isFrames(Data(joinedAudio.bytes)))

                let queued = try await client.send(.POST, "/api/episodes/\(moths.id)/download", json: EpisodeDownloadRequest(trimSilence: false), auth: .cookie(bea))
                #expect(queued.status == .accepted, "\(queued.text)")
                let jobID = try #require(try queued.decode(EpisodeInfo.self).download?.jobID)
                #expect(try await Self.waitForJob(jobID, client, bea).status == "done")
                let ready = try await client.send(.GET, "/api/episodes/\(moths.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                let download = try #require(ready.download)
                #expect(download.status == .ready && download.timeMap.isEmpty && download.removedSeconds == 0)
                #expect(abs((download.duration ?? 0) - 6) < 0.2 && (download.measuredLoudness ?? 0) < -16)
                let audio = try await client.send(.GET, "/api/episodes/\(moths.id)/audio", auth: .cookie(bea))
                #expect(audio.headers.first(name: .contentType) == "audio/mpeg")
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("episode-\(UUID().uuidString).mp3")
                try audio.bytes.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                #expect(abs(try await AudioFiles().loudness(of: file) - -16) < 1)

                let chapters = try await client.send(.GET, "/api/episodes/\(moths.id)/chapters", auth: .cookie(bea)).decode(EpisodeChapters.self)
                #expect(chapters.source == "podcast:chapters" && chapters.chapters.map(\.title) == ["Hello", "The owls"] && chapters.chapters[1].start == 2.5)
                let transcript = try await client.send(.GET, "/api/episodes/\(moths.id)/transcript", auth: .cookie(bea)).decode(EpisodeTranscript.self)
                #expect(transcript.lines == [TranscriptLine(start: 0.5, end: 2, speaker: "Ann", text: "Good evening."),
                                             TranscriptLine(start: 2.5, end: 5, speaker: "Ann", text: "Listen to the owls.")])

                // Played: 94% is not, 95% is; with delete-after-played on, the file goes.
                _ = try await client.send(.PATCH, "/api/podcasts/\(podcast.id)", json: PodcastUpdateRequest(favourite: nil, deleteAfterPlayed: true), auth: .cookie(bea))
                func report(_ position: Double, _ kind: String) async throws {
                    let event = ProgressEventInput(id: UUID().uuidString, item: "podcast:\(moths.id)", device: "phone", at: Date(), position: position, kind: kind)
                    let reply = try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [event]), auth: .cookie(bea))
                    #expect(reply.status == .ok, "\(reply.text)")
                }
                try await report(5.6, "pause")
                var now = try await client.send(.GET, "/api/episodes/\(moths.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(!now.played && now.download?.status == .ready && now.position == 5.6)
                try await report(5.75, "pause")
                now = try await client.send(.GET, "/api/episodes/\(moths.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(now.played && now.download == nil)
                let kept = try FileManager.default.contentsOfDirectory(atPath: try #require(client.config).mediaDirectory("podcasts").path)
                #expect(kept.isEmpty, "\(kept)")
                // Marked unplayed, and played again by hand.
                now = try await client.send(.POST, "/api/episodes/\(moths.id)/played", json: EpisodePlayedRequest(played: false, device: "phone"), auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(!now.played && now.position == 0)
                now = try await client.send(.POST, "/api/episodes/\(moths.id)/played", json: EpisodePlayedRequest(played: true, device: "phone"), auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(now.played)

                // The flaky episode: the first try breaks off halfway (the job fails, the part is
                // kept); asked again, it continues from there with a Range request.
                let first = try await client.send(.POST, "/api/episodes/\(owls.id)/download", json: EpisodeDownloadRequest(trimSilence: true), auth: .cookie(bea)).decode(EpisodeInfo.self)
                let failed = try await Self.waitForJob(try #require(first.download?.jobID), client, bea)
                #expect(failed.status == "failed")
                #expect(try await client.send(.GET, "/api/episodes/\(owls.id)", auth: .cookie(bea)).decode(EpisodeInfo.self).download?.status == .failed)
                let again = try await client.send(.POST, "/api/episodes/\(owls.id)/download", json: EpisodeDownloadRequest(trimSilence: nil), auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(try await Self.waitForJob(try #require(again.download?.jobID), client, bea).status == "done")
                let ranges = site.snapshot.ranges
                #expect(ranges.count == 1 && ranges[0].hasPrefix("bytes=") && (Int(ranges[0].dropFirst(6).dropLast()) ?? 0) > 0, "\(ranges)")
                let owlsNow = try await client.send(.GET, "/api/episodes/\(owls.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(owlsNow.download?.status == .ready && owlsNow.download?.trimmedSilence == true && abs((owlsNow.download?.duration ?? 0) - 6) < 0.2)
                await client.app.jobs.stop()
            }
        }
    }

    @Test("an episode whose file has its own chapters (ID3 CHAP) and the feed names none: downloaded, its chapters come from the file")
    func chaptersFromTheFile() async throws {
        try await Self.withSite { site in
            try await withTestApp(.sqlite, adjust: Self.adjust(site)) { client in
                let bea = try await client.setUpOwner("bea")
                client.app.jobs.start()
                let podcast = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(3)), auth: .cookie(bea)).decode(PodcastInfo.self)
                let episode = try #require(try await client.send(.GET, "/api/podcasts/\(podcast.id)", auth: .cookie(bea)).decode(PodcastDetail.self).episodes.first)
                #expect(!episode.hasChapters)
                #expect(try await client.send(.GET, "/api/episodes/\(episode.id)/chapters", auth: .cookie(bea)).decode(EpisodeChapters.self).source == "none")
                let queued = try await client.send(.POST, "/api/episodes/\(episode.id)/download", json: EpisodeDownloadRequest(trimSilence: false), auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(try await Self.waitForJob(try #require(queued.download?.jobID), client, bea).status == "done")
                let ready = try await client.send(.GET, "/api/episodes/\(episode.id)", auth: .cookie(bea)).decode(EpisodeInfo.self)
                #expect(ready.hasChapters && ready.download?.status == .ready)
                let chapters = try await client.send(.GET, "/api/episodes/\(episode.id)/chapters", auth: .cookie(bea)).decode(EpisodeChapters.self)
                #expect(chapters.source == "file" && chapters.chapters.map(\.title) == ["Opening", "Owls"] && abs(chapters.chapters[1].start - 2.5) < 0.01)
                await client.app.jobs.stop()
            }
        }
    }

    @Test("two servers sharing PostgreSQL: each due feed is queued once and fetched once",
          arguments: TestDatabase.all.filter { if case .postgres = $0 { true } else { false } })
    func twoServersShareRefreshes(database: TestDatabase) async throws {
        try await Self.withSite { site in
            try await withTestApp(database, adjust: Self.adjust(site)) { client in
                let bea = try await client.setUpOwner("bea")
                for n in 1...6 {
                    let reply = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(n)), auth: .cookie(bea))
                    #expect(reply.status == .created)
                }
                // All due now; then feed contents change so each refresh fetches the whole feed.
                for n in 1...6 { site.publish("New \(n)", in: n) }
                client.clock.advance(by: 60)
                let repository = FluentPodcastRepository(database: client.app.db)
                for n in 1...6 {
                    var row = try #require(try await repository.podcast(feedURL: site.feed(n)))
                    row.nextRefreshAt = Date().addingTimeInterval(-60)
                    try await repository.save(row)
                }
                let other = try await Application.make(.testing)
                other.logger.logLevel = .warning
                do {
                    try await configure(other, try #require(client.config), now: client.clock.closure)
                    async let one = FeedRefresh.queueDue(podcasts: FluentPodcastRepository(database: client.app.db), jobs: client.app.services.jobQueue, now: Date())
                    async let two = FeedRefresh.queueDue(podcasts: FluentPodcastRepository(database: other.db), jobs: other.services.jobQueue, now: Date())
                    let (a, b) = try await (one, two)
                    #expect(a + b == 6, "queued \(a) and \(b)")
                    let before = site.snapshot.hits
                    client.app.jobs.start()
                    other.jobs.start()
                    _ = try await eventually("six refreshes done") { () -> Bool? in
                        let jobs = try await client.send(.GET, "/api/jobs", auth: .cookie(bea)).decode(JobList.self).jobs
                            .filter { $0.kind == FeedRefresh.kind.rawValue }
                        return jobs.count == 6 && jobs.allSatisfy({ $0.status == JobStatus.done.rawValue }) ? true : nil
                    }
                    let after = site.snapshot.hits
                    for n in 1...6 { #expect((after["feed\(n)"] ?? 0) - (before["feed\(n)"] ?? 0) == 1, "feed \(n)") }
                    let list = try await client.send(.GET, "/api/podcasts", auth: .cookie(bea)).decode(PodcastList.self)
                    #expect(list.podcasts.allSatisfy { $0.newEpisodes == 1 })
                    await other.jobs.stop()
                    await client.app.jobs.stop()
                } catch {
                    try? await other.asyncShutdown()
                    throw error
                }
                try? await other.asyncShutdown()
            }
        }
    }

    @Test("the store answers podcasts, subscriptions and downloads as written; a download deleted while its job runs stays deleted",
          arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let me = try await client.send(.GET, "/api/auth/me", auth: .cookie(owner)).decode(SessionInfo.self).user
            let user = AuthenticatedUser(id: me.id, username: me.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: me.createdAt)
            var stranger = user
            stranger.id = UUID()
            let podcasts = FluentPodcastRepository(database: client.app.db)
            let due = Date(timeIntervalSince1970: 1_790_000_000)

            let created = try await podcasts.podcastCreating(feedURL: "https://example.com/feed", title: "Night Owls", now: due)
            #expect(created.createdAt != nil && created.failures == 0 && created.nextRefreshAt == due && created.title == "Night Owls")
            // The creation date as the database keeps it, the rest exactly as written.
            let made = try #require(try await podcasts.podcast(created.id))
            var kept = created
            kept.createdAt = made.createdAt
            #expect(made == kept)
            #expect(try await podcasts.podcastCreating(feedURL: "https://example.com/feed", title: "Other", now: Date()) == made)
            var podcast = made
            (podcast.title, podcast.author, podcast.image, podcast.link, podcast.summary) = ("Night Owls", "Ann Host", "https://example.com/a.jpg",
                                                                                             "https://example.com", "Late talk.")
            (podcast.etag, podcast.lastModified, podcast.lastRefreshedAt) = ("\"v1\"", "Tue, 01 Sep 2026 10:00:00 GMT", due)
            (podcast.nextRefreshAt, podcast.failures, podcast.lastError) = (due.addingTimeInterval(3600), 2, "The feed could not be read.")
            try await podcasts.save(podcast)
            #expect(try await podcasts.podcast(made.id) == podcast)
            #expect(try await podcasts.podcast(feedURL: "https://example.com/feed") == podcast)

            let (subscribed, isNew) = try await podcasts.subscribe(podcast.id, ownedBy: user, now: due)
            #expect(isNew && subscribed.podcast == podcast && !subscribed.favourite && !subscribed.deleteAfterPlayed && subscribed.seenUntil == due)
            let again = try await podcasts.subscribe(podcast.id, ownedBy: user, now: Date())
            #expect(again.0 == subscribed && !again.created)
            var subscription = subscribed
            (subscription.favourite, subscription.deleteAfterPlayed, subscription.seenUntil) = (true, true, due.addingTimeInterval(60))
            subscription.podcast.title = "Not written with the subscription"
            try await podcasts.save(subscription)
            subscription.podcast = podcast
            #expect(try await podcasts.subscription(to: podcast.id, ownedBy: user) == subscription)
            #expect(try await podcasts.subscriptions(ownedBy: user) == [subscription])
            #expect(try await podcasts.subscription(to: podcast.id, ownedBy: stranger) == nil)

            let row = EpisodeModel()
            row.guid = "ep-1"
            row.title = "Moths"
            row.transcripts = "[]"
            row.firstSeenAt = due
            row.$podcast.id = podcast.id
            try await row.create(on: client.app.db)
            let episode = try #require(try await podcasts.episode(try row.requireID()))
            #expect(try await podcasts.episodes(of: podcast.id) == [episode] && episode.podcastID == podcast.id && episode.guid == "ep-1")

            let asked = EpisodeDownloadRecord(episodeID: episode.id, trimSilence: true)
            let written = try await podcasts.create(asked, ownerID: user.id)
            #expect(written.createdAt != nil)
            var download = try #require(try await podcasts.download(of: episode.id, ownedBy: user))
            var expected = asked
            expected.createdAt = download.createdAt
            #expect(download == expected && download.status == .queued && download.timeMap == "[]")
            (download.status, download.jobID, download.bytes, download.duration) = (.ready, UUID(), 48_000, 5.5)
            (download.measuredLoudness, download.timeMap, download.chapters) = (-20.5, "[[0,5.5]]", #"[{"title":"Opening","start":0}]"#)
            try await podcasts.save(download)
            #expect(try await podcasts.download(written.id) == download)
            #expect(try await podcasts.downloads(ownedBy: user, episodes: [episode.id]) == [episode.id: download])
            #expect(try await podcasts.download(of: episode.id, ownedBy: stranger) == nil)

            try await podcasts.delete(download)
            download.status = .failed
            try await podcasts.save(download)
            #expect(try await podcasts.download(written.id) == nil)
        }
    }

    /// How long the audio in `bytes` plays, as ffprobe reads it.
    static func probedSeconds(_ bytes: Data) async throws -> Double {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString).aac")
        defer { try? FileManager.default.removeItem(at: file) }
        try bytes.write(to: file)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        probe.arguments = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file.path]
        let output = Pipe()
        probe.standardOutput = output
        try probe.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("radio: top stations and search through radio-browser's server list (a broken server skipped), favourites kept per person, a click counted")
    func radio() async throws {
        try await Self.withSite { site in
            try await withTestApp(.sqlite, adjust: Self.adjust(site)) { client in
                let bea = try await client.setUpOwner("bea")
                // The list is shuffled: asked twelve times, the broken server comes first in about
                // half, so a client that did not go on to the next server would fail here.
                for _ in 0..<12 {
                    let top = try await client.send(.GET, "/api/radio/stations", auth: .cookie(bea))
                    #expect(top.status == .ok, "\(top.text)")
                    #expect(try top.decode(RadioStationList.self).stations.map(\.name) == ["Night Owl FM", "Owl HLS"])
                }
                let found = try await client.send(.GET, "/api/radio/stations?q=owl", auth: .cookie(bea)).decode(RadioStationList.self).stations
                #expect(found[0].urlResolved == site.url.appendingPathComponent("audio/tone.mp3").absoluteString && found[0].tags == ["ambient", "night"] && !found[0].hls)
                #expect(found[1].hls && found[0].favicon == nil && found[0].bitrate == 128)
                #expect(try await client.send(.GET, "/api/radio/stations?q=jazz", auth: .cookie(bea)).decode(RadioStationList.self).stations.isEmpty)

                // Streams through the server.
                let stream = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/stream", auth: .cookie(bea))
                #expect(stream.status == .ok && stream.bytes.count > 10_000 && stream.headers.first(name: .contentType) == "audio/mpeg")
                // The HLS-only station: remuxed by ffmpeg into one AAC stream of all its sound (its
                // audio-only variant, not the video one) …
                let hls = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/stream", auth: .cookie(bea))
                #expect(hls.status == .ok && hls.headers.first(name: .contentType) == "audio/aac", "\(hls.status) \(hls.text.prefix(300))")
                let seconds = try await Self.probedSeconds(hls.bytes)
                #expect(abs(seconds - 12) < 1, "the remux holds \(seconds) s of the station's 12 s")
                // A HEAD says what it would send, and starts nothing.
                let fetchedBefore = site.snapshot.hits.filter { $0.key.hasSuffix(".ts") }.values.reduce(0, +)
                let head = try await client.send(.HEAD, "/api/radio/stations/\(PodcastSite.hlsStationID)/stream", auth: .cookie(bea))
                #expect(head.status == .ok && head.headers.first(name: .contentType) == "audio/aac" && head.bytes.isEmpty)
                // (The playlists are read to answer it; no segment is fetched.)
                #expect(site.snapshot.hits.filter { $0.key.hasSuffix(".ts") }.values.reduce(0, +) == fetchedBefore)
                // … and, for a browser with HLS built in, its playlist with segments addressed here.
                let playlist = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/stream?hls=1", auth: .cookie(bea))
                #expect(playlist.headers.first(name: .contentType) == "application/vnd.apple.mpegurl")
                #expect(playlist.text.contains("#EXTINF:4") && playlist.text.contains("\nsegments/0\n") && playlist.text.contains("segments/3\n#EXT-X-ENDLIST"),
                        "\(playlist.text)")
                let segment = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/segments/1", auth: .cookie(bea))
                #expect(segment.status == .ok && segment.bytes.first == 0x47, "an MPEG-TS packet begins with 0x47")
                #expect(segment.headers.first(name: .cacheControl) == "no-store")
                for gone in ["9", "-1", "x", "init"] {
                    #expect(try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/segments/\(gone)", auth: .cookie(bea)).status == .notFound, "\(gone)")
                }
                #expect(try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/segments/0", auth: .cookie(bea)).status == .notFound,
                        "a station that is not HLS has no segments")
                #expect(try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/segments/0").status == .unauthorized)
                #expect(try await client.send(.POST, "/api/radio/stations/\(PodcastSite.stationID)/click", auth: .cookie(bea)).status == .noContent)
                #expect(site.snapshot.clicks == [PodcastSite.stationID])

                let kept = try await client.send(.PUT, "/api/radio/favourites/\(PodcastSite.stationID)", auth: .cookie(bea)).decode(RadioStationList.self)
                #expect(kept.stations.map(\.name) == ["Night Owl FM"])
                #expect(try await client.send(.PUT, "/api/radio/favourites/\(UUID().uuidString)", auth: .cookie(bea)).status == .notFound)
                let cy = try await client.addUser("cy", by: bea)
                #expect(try await client.send(.GET, "/api/radio/favourites", auth: .cookie(cy)).decode(RadioStationList.self).stations.isEmpty)
                #expect(try await client.send(.DELETE, "/api/radio/favourites/\(PodcastSite.stationID)", auth: .cookie(cy)).status == .notFound)
                #expect(try await client.send(.DELETE, "/api/radio/favourites/\(PodcastSite.stationID)", auth: .cookie(bea)).status == .noContent)
                #expect(try await client.send(.GET, "/api/radio/favourites", auth: .cookie(bea)).decode(RadioStationList.self).stations.isEmpty)
            }
        }
    }

    @Test("radio: a station shaped on the way, for a locked phone (issue 46): until ends it with the sleep timer's fade, level lowers it, the HLS relay too")
    func radioShaped() async throws {
        try await Self.withSite { site in
            try await withTestApp(.sqlite, adjust: Self.adjust(site)) { client in
                let bea = try await client.setUpOwner("bea")
                let plain = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/stream", auth: .cookie(bea))
                let full = try await JoinedStreamTests.decoded(Data(plain.bytes))
                func rms(_ buffer: AudioBuffer, _ from: Double, _ to: Double) -> Float {
                    buffer.rms(Int(from * Double(buffer.sampleRate))..<min(buffer.samples.count, Int(to * Double(buffer.sampleRate))))
                }
                // Four seconds of the station, falling to silence on the timer's fade (30 s, so all of these four are in it).
                let ending = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/stream?until=4", auth: .cookie(bea))
                #expect(ending.status == .ok && ending.headers.first(name: .contentType) == "audio/mpeg", "\(ending.status) \(ending.text.prefix(200))")
                let faded = try await JoinedStreamTests.decoded(Data(ending.bytes))
                let seconds = Double(faded.samples.count) / Double(faded.sampleRate)
                #expect(abs(seconds - 4) < 0.15, "the shaped stream lasts \(seconds) s, not the 4 asked for")
                let early = rms(faded, 0.2, 0.6), late = rms(faded, 3.5, 3.9), tail = rms(faded, 3.92, 4.0)
                #expect(early > 0.8 * rms(full, 0.2, 0.6) && late < 0.2 * early && decibels(tail) < -40,
                        "the fade: \(decibels(early)) dB early, \(decibels(late)) dB late, \(decibels(tail)) dB at the end")
                // At half the level (−6 dB), and on past the station's own first seconds.
                let half = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/stream?level=0.5", auth: .cookie(bea))
                let lowered = try await JoinedStreamTests.decoded(Data(half.bytes))
                let drop = decibels(rms(lowered, 1, 4)) - decibels(rms(full, 1, 4))
                #expect(abs(drop + 6) < 1, "level 0.5 lowered the station by \(drop) dB")
                // The HLS-only station's relay: encoded, ending at its `until`.
                let hls = try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/stream?until=6", auth: .cookie(bea))
                #expect(hls.status == .ok && hls.headers.first(name: .contentType) == "audio/mpeg", "\(hls.status) \(hls.text.prefix(200))")
                let hlsSeconds = try await Self.probedSeconds(Data(hls.bytes))
                #expect(abs(hlsSeconds - 6) < 0.2, "the HLS relay lasts \(hlsSeconds) s of the 6 asked for")
                // A HEAD asks the station nothing; the playlist a browser reads itself has no shape; an end must be 1 s or more.
                let head = try await client.send(.HEAD, "/api/radio/stations/\(PodcastSite.stationID)/stream?until=30", auth: .cookie(bea))
                #expect(head.status == .ok && head.headers.first(name: .contentType) == "audio/mpeg" && head.bytes.isEmpty)
                #expect(try await client.send(.GET, "/api/radio/stations/\(PodcastSite.hlsStationID)/stream?hls=1&until=30", auth: .cookie(bea)).status == .badRequest)
                #expect(try await client.send(.GET, "/api/radio/stations/\(PodcastSite.stationID)/stream?until=0", auth: .cookie(bea)).status == .badRequest)
            }
        }
    }

    @Test("without the owner's allowance, a feed on a private address is refused with a reason")
    func privateAddressRefused() async throws {
        try await Self.withSite { site in
            try await withTestApp(.sqlite) { client in
                let bea = try await client.setUpOwner("bea")
                let reply = try await client.send(.POST, "/api/podcasts", json: PodcastSubscribeRequest(feedURL: site.feed(1)), auth: .cookie(bea))
                #expect(reply.status == .unprocessableEntity && reply.error?.message.contains("private") == true, "\(reply.text)")
            }
        }
    }
}
