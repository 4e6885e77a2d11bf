import AudioRender
import Feeds
import Foundation
import Playback
import ReverieAPI
import Vapor

extension PodcastSearchResult: Content {}
extension PodcastInfo: Content {}
extension PodcastList: Content {}
extension PodcastDetail: Content {}
extension EpisodeInfo: Content {}
extension EpisodeChapters: Content {}
extension EpisodeTranscript: Content {}
extension OPMLImportResult: Content {}
extension PodcastIndexSettings: Content {}

/// Podcasts in Listen: find them (iTunes, Podcast Index) or add a feed by its address, subscribe,
/// favourite, see what is new; refreshes on a schedule; episodes streamed or downloaded (levelled,
/// silences shortened on request), with chapters and a transcript; played marks from the
/// listening log; OPML in and out.
struct PodcastController: RouteCollection {
    let podcastIndexCredentials: Store<any PodcastIndexCredentialsStore>
    let podcasts: Store<any PodcastRepository>
    let progress: Store<any ProgressRepository>
    let jobRecords: Store<any JobRepository>
    let media: MediaFiles
    /// The sleep timer's renditions of downloaded episodes (`?until=`).
    let renditions: Renditions
    let jobs: JobQueue
    let feeds: FeedSchedule
    let client: GuardedHTTPClient
    /// Where downloads are kept, the search services' addresses, the refresh interval, the largest file.
    let config: ServerConfig
    let now: @Sendable () -> Date
    /// After a feed read here added episodes: podcast apps' actions waiting for them.
    var refreshed: @Sendable (PodcastRecord) async throws -> Void = { _ in }
    /// Chapters files and transcripts as last fetched, by URL.
    let chapterFiles = Recent<String, [EpisodeChapter]>(lifetime: .minutes(30), capacity: 500)
    let transcripts = Recent<String, [TranscriptLine]>(lifetime: .minutes(30), capacity: 200)
    static let maxSideFileBytes = 8 << 20
    static let maxOPMLBytes = 4 << 20
    static let progressPrefix = ItemKey.Kind.podcast.prefix

    func boot(routes: any RoutesBuilder) throws {
        let podcasts = routes.grouped("api", "podcasts")
        podcasts.get("search", use: search)
        podcasts.get(use: list)
        podcasts.post(use: subscribe)
        podcasts.get("opml", use: exportOPML)
        podcasts.on(.POST, "opml", takes: .file(limit: Self.maxOPMLBytes), use: importOPML)
        podcasts.get("podcastindex", use: podcastIndexSettings)
        podcasts.put("podcastindex", use: savePodcastIndex)
        podcasts.delete("podcastindex", use: removePodcastIndex)
        podcasts.get(":podcastID", use: show)
        podcasts.patch(":podcastID", use: update)
        podcasts.delete(":podcastID", use: unsubscribe)
        podcasts.post(":podcastID", "refresh", use: refresh)
        podcasts.post(":podcastID", "seen", use: seen)
        let episodes = routes.grouped("api", "episodes")
        episodes.get(":episodeID", use: episode)
        episodes.post(":episodeID", "download", use: download)
        episodes.delete(":episodeID", "download", use: deleteDownload)
        episodes.get(":episodeID", "audio", use: audio)
        episodes.get(":episodeID", "chapters", use: chapters)
        episodes.get(":episodeID", "transcript", use: transcript)
        episodes.post(":episodeID", "played", use: played)
    }

    // MARK: - Finding and subscribing

    /// `GET /api/podcasts/search?q=TEXT`.
    func search(req: Request) async throws -> PodcastSearchResult {
        _ = try req.user
        let text = (try req.queryString("q", maximumLength: 100) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError(.badRequest, code: "invalid_field", "q: what to search for, 1 to 100 characters.") }
        let directory = PodcastDirectory(itunesBase: config.itunesBaseURL, podcastIndexBase: config.podcastIndexBaseURL,
                                         podcastIndex: try await podcastIndexCredentials.on(req).credentials(), client: client,
                                         now: now)
        return await directory.search(text)
    }

    /// Pictures kept a while, by URL: a list of podcasts asks for the same covers again and again.
    /// `GET /api/podcasts`: favourites first, then by title.
    func list(req: Request) async throws -> PodcastList {
        let user = try req.user
        let subscriptions = try await podcasts.on(req).subscriptions(ownedBy: user)
        let counts = try await podcasts.on(req).episodeCounts(subscriptions.map(\.podcast.id),
                                                                      firstSeenAfter: Dictionary(subscriptions.map { ($0.podcast.id, $0.seenUntil) }, uniquingKeysWith: { a, _ in a }))
        let infos = subscriptions.map { Self.info($0, counts: counts[$0.podcast.id] ?? (0, 0)) }
        return PodcastList(podcasts: infos.sorted { ($0.favourite ? 0 : 1, $0.title.lowercased()) < ($1.favourite ? 0 : 1, $1.title.lowercased()) })
    }

    /// `POST /api/podcasts` `{"feedURL"}`: 201 with the podcast (read now, so a bad address says
    /// so at once), or 200 when already subscribed.
    func subscribe(req: Request) async throws -> Response {
        let user = try req.user
        let body = try req.content.decode(PodcastSubscribeRequest.self)
        guard body.feedURL.count <= 2000, let address = FeedParser.absoluteURL(OPML.appScheme(body.feedURL)) else {
            throw APIError(.badRequest, code: "invalid_field", "feedURL: the feed's address, beginning http:// or https://.")
        }
        let repository = podcasts.on(req)
        let now = self.now()
        let podcast = try await repository.podcastCreating(feedURL: address, title: address, now: now)
        if podcast.lastRefreshedAt == nil {
            do {
                let outcome = try await FeedRefresh.refresh(podcast, repository: repository, client: client, interval: refreshInterval(req), now: now)
                if outcome.added > 0 { try? await refreshed(podcast) }
            } catch {
                throw APIError(.unprocessableEntity, code: "feed_unreadable", "Reverie could not read a podcast at that address: \(FeedRefresh.message(for: error))")
            }
        }
        let (subscription, created) = try await repository.subscribe(podcast.id, ownedBy: user, now: now)
        let counts = try await repository.episodeCounts([podcast.id], firstSeenAfter: [:])
        return try await Self.info(subscription, counts: counts.values.first ?? (0, 0)).encodeResponse(status: created ? .created : .ok, for: req)
    }

    /// `GET /api/podcasts/opml`: the person's subscriptions as an OPML file.
    func exportOPML(req: Request) async throws -> Response {
        let subscriptions = try await podcasts.on(req).subscriptions(ownedBy: try req.user)
        let outlines = subscriptions.sorted { $0.podcast.title.lowercased() < $1.podcast.title.lowercased() }
            .map { OPMLOutline(title: $0.podcast.title, feedURL: $0.podcast.feedURL, siteURL: $0.podcast.link) }
        return .download(.init(string: OPML.export(outlines, created: now())),
                         type: HTTPMediaType(type: "text", subType: "x-opml", parameters: ["charset": "utf-8"]), name: "reverie-podcasts.opml")
    }

    /// `POST /api/podcasts/opml` (the file as the body): subscribes to every feed in it. Feeds
    /// Reverie has not seen are read by the refresh schedule (each at once: they are due now).
    func importOPML(req: Request) async throws -> OPMLImportResult {
        let user = try req.user
        guard let body = req.body.data, body.readableBytes > 0 else {
            throw APIError(.badRequest, code: "invalid_body", "Send the OPML file as the request's body.")
        }
        let outlines: [OPMLOutline]
        do {
            outlines = try OPML.parse(Data(buffer: body))
        } catch let error as FeedError {
            throw error.answered(code: "not_opml", lead: "This is not an OPML file Reverie can read")
        }
        guard outlines.count <= 2000 else { throw APIError(.unprocessableEntity, code: "too_many", "At most 2,000 feeds at a time.") }
        let (added, already, ids) = try await subscribe(to: outlines.map { ($0.feedURL, $0.title) }, user: user, req: req)
        let all = try await list(req: req).podcasts
        return OPMLImportResult(added: added, alreadySubscribed: already, podcasts: all.filter { ids.contains(UUID(uuidString: $0.id) ?? UUID()) })
    }

    /// Subscribes the person to each feed; those Reverie has not seen are read by the refresh
    /// schedule (each at once: they are due now). Answers how many were new, how many the person
    /// already had, and the podcasts' ids in order.
    func subscribe(to list: [(url: String, title: String)], user: AuthenticatedUser, req: Request) async throws
        -> (added: Int, already: Int, ids: [UUID]) {
        let repository = podcasts.on(req)
        let now = self.now()
        var added = 0, already = 0
        var ids: [UUID] = []
        for (url, title) in list {
            let podcast = try await repository.podcastCreating(feedURL: url, title: String(title.prefix(500)), now: now)
            let (_, created) = try await repository.subscribe(podcast.id, ownedBy: user, now: now)
            if created { added += 1 } else { already += 1 }
            ids.append(podcast.id)
        }
        if added > 0 { feeds.lookSoon() }
        return (added, already, ids)
    }

    /// Unsubscribes the person, with their downloads of it; the last one out removes the podcast
    /// (its address, titles and show notes).
    func unsubscribe(from podcastID: UUID, user: AuthenticatedUser, req: Request) async throws {
        let repository = podcasts.on(req)
        let episodes = try await repository.episodes(of: podcastID).map(\.id)
        for download in try await repository.downloads(ownedBy: user, episodes: episodes).values {
            EpisodeDownload.removeFiles(download.id, config)
            try await repository.delete(download)
        }
        _ = try await repository.unsubscribe(podcastID, ownedBy: user)
        _ = try await repository.removeUnsubscribed()
    }

    // MARK: - A podcast

    /// `GET /api/podcasts/{podcastID}`: the podcast and its episodes, newest first.
    func show(req: Request) async throws -> PodcastDetail {
        let (user, subscription) = try await subscription(req)
        let repository = podcasts.on(req)
        let podcastID = subscription.podcast.id
        let episodes = try await repository.episodes(of: podcastID).sorted(by: Self.newestFirst)
        let places = try await progress.on(req).deciding(prefixed: Self.progressPrefix, ownedBy: user)
        let downloads = try await repository.downloads(ownedBy: user, episodes: episodes.map(\.id))
        let jobs = try await jobsByID(downloads.values.compactMap(\.jobID), req)
        let new = episodes.filter { $0.firstSeenAt > subscription.seenUntil }.count
        let infos = episodes.map { Self.info($0, seenUntil: subscription.seenUntil, place: places[Self.key($0)], download: downloads[$0.id], jobs: jobs) }
        return PodcastDetail(podcast: Self.info(subscription, counts: (episodes.count, new)), description: subscription.podcast.summary, episodes: infos)
    }

    /// `PATCH /api/podcasts/{podcastID}` `{"favourite", "deleteAfterPlayed"}`.
    func update(req: Request) async throws -> PodcastInfo {
        var (_, subscription) = try await subscription(req)
        let body = try req.content.decode(PodcastUpdateRequest.self)
        if let favourite = body.favourite { subscription.favourite = favourite }
        if let delete = body.deleteAfterPlayed { subscription.deleteAfterPlayed = delete }
        try await podcasts.on(req).save(subscription)
        let counts = try await podcasts.on(req).episodeCounts([subscription.podcast.id], firstSeenAfter: [subscription.podcast.id: subscription.seenUntil])
        return Self.info(subscription, counts: counts.values.first ?? (0, 0))
    }

    /// `DELETE /api/podcasts/{podcastID}`: unsubscribes (the person's downloads of it go too).
    func unsubscribe(req: Request) async throws -> HTTPStatus {
        let (user, subscription) = try await subscription(req)
        try await unsubscribe(from: subscription.podcast.id, user: user, req: req)
        return .noContent
    }

    /// `POST /api/podcasts/{podcastID}/refresh`: 202 with the refresh job.
    func refresh(req: Request) async throws -> Response {
        let (user, subscription) = try await subscription(req)
        let job = try await FeedRefresh.queue(subscription.podcast, ownerID: user.id, jobs: jobs)
        return try await JobController.info(job).encodeResponse(status: .accepted, for: req)
    }

    /// `POST /api/podcasts/{podcastID}/seen`: the new episodes are not new any more.
    func seen(req: Request) async throws -> PodcastInfo {
        var (_, subscription) = try await subscription(req)
        subscription.seenUntil = now()
        try await podcasts.on(req).save(subscription)
        let counts = try await podcasts.on(req).episodeCounts([subscription.podcast.id], firstSeenAfter: [:])
        return Self.info(subscription, counts: counts.values.first ?? (0, 0))
    }

    // MARK: - Podcast Index credentials (the owner's)

    /// `GET /api/podcasts/podcastindex`: whether search also asks Podcast Index (the key shown, the secret never).
    func podcastIndexSettings(req: Request) async throws -> PodcastIndexSettings {
        _ = try req.user
        let credentials = try await podcastIndexCredentials.on(req).credentials()
        return PodcastIndexSettings(configured: credentials != nil, key: credentials?.key)
    }

    /// `PUT /api/podcasts/podcastindex` `{"key", "secret"}`: the owner's only.
    func savePodcastIndex(req: Request) async throws -> PodcastIndexSettings {
        let user = try req.owner("sets the Podcast Index key")
        let body = try req.content.decode(PodcastIndexCredentialsRequest.self)
        let key = body.key.trimmingCharacters(in: .whitespacesAndNewlines), secret = body.secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(key.count), (1...200).contains(secret.count), !(key + secret).contains(where: { $0.isNewline }) else {
            throw APIError(.badRequest, code: "invalid_field", "key and secret: as Podcast Index gave them, 1 to 200 characters each.")
        }
        try await podcastIndexCredentials.on(req).save(.init(key: key, secret: secret), ownedBy: user)
        return PodcastIndexSettings(configured: true, key: key)
    }

    /// `DELETE /api/podcasts/podcastindex`: search asks iTunes alone.
    func removePodcastIndex(req: Request) async throws -> HTTPStatus {
        try req.owner("removes the Podcast Index key")
        try await podcastIndexCredentials.on(req).remove()
        return .noContent
    }

    // MARK: - Episodes

    /// `GET /api/episodes/{episodeID}`.
    func episode(req: Request) async throws -> EpisodeInfo {
        let (user, episode, subscription) = try await episode(req)
        let place = try await progress.on(req).deciding(prefixed: Self.key(episode), ownedBy: user)[Self.key(episode)]
        let download = try await podcasts.on(req).download(of: episode.id, ownedBy: user)
        let jobs = try await jobsByID(download?.jobID.map { [$0] } ?? [], req)
        return Self.info(episode, seenUntil: subscription.seenUntil, place: place, download: download, jobs: jobs)
    }

    /// `POST /api/episodes/{episodeID}/download` `{"trimSilence"}`: 202 with the episode, its
    /// download queued (or continued, after a failure).
    func download(req: Request) async throws -> Response {
        let (user, episode, subscription) = try await episode(req)
        let body = (try? req.content.decode(EpisodeDownloadRequest.self)) ?? EpisodeDownloadRequest(trimSilence: nil)
        guard episode.enclosureURL != nil else {
            throw APIError(.unprocessableEntity, code: "no_audio", "“\(episode.shownTitle)” has no audio file in its feed.")
        }
        let repository = podcasts.on(req)
        let existing = try await repository.download(of: episode.id, ownedBy: user)
        if let existing, existing.status != .failed {
            let jobs = try await jobsByID(existing.jobID.map { [$0] } ?? [], req)
            return try await Self.info(episode, seenUntil: subscription.seenUntil, place: nil, download: existing, jobs: jobs).encodeResponse(status: .ok, for: req)
        }
        var download: EpisodeDownloadRecord
        if var failed = existing {
            failed.status = .queued
            if let trim = body.trimSilence { failed.trimSilence = trim }
            try await repository.save(failed)
            download = failed
        } else {
            download = try await repository.create(EpisodeDownloadRecord(episodeID: episode.id, trimSilence: body.trimSilence ?? false), ownerID: user.id)
        }
        let job = try await jobs.enqueue(EpisodeDownload(downloadID: download.id), title: episode.title, ownerID: user.id)
        download.jobID = job.id
        try await repository.save(download)
        return try await Self.info(episode, seenUntil: subscription.seenUntil, place: nil, download: download, jobs: [job.id: job])
            .encodeResponse(status: .accepted, for: req)
    }

    /// `DELETE /api/episodes/{episodeID}/download`: the file goes; the episode streams again.
    func deleteDownload(req: Request) async throws -> HTTPStatus {
        let (user, episode, _) = try await episode(req)
        guard let download = try await podcasts.on(req).download(of: episode.id, ownedBy: user) else {
            throw APIError(.notFound, code: "not_found", "“\(episode.shownTitle)” is not downloaded.")
        }
        EpisodeDownload.removeFiles(download.id, config)
        try await podcasts.on(req).delete(download)
        return .noContent
    }

    /// `GET /api/episodes/{episodeID}/audio`: the person's download when it is ready (levelled;
    /// its time map in the episode's download), else the original streamed through the guarded
    /// client. Range works on both. With `?until=SECONDS`, a ready download answers the sleep
    /// timer's rendition of it (the same timeline, ending there, its last 30 s fading out), and
    /// with `level` (0–1) or `boost` its rendition at that level; a stream has none, so it answers
    /// the stream.
    func audio(req: Request) async throws -> Response {
        let shape = try req.renditionShape(untilIn: 1...(7 * 24 * 3600))
        let (user, episode, _) = try await episode(req)
        if let download = try await podcasts.on(req).download(of: episode.id, ownedBy: user), download.status == .ready {
            let file = EpisodeDownload.file(download.id, config)
            if FileManager.default.fileExists(atPath: file.path) {
                if let duration = download.duration,
                   let rendition = try await renditions.rendition(of: file, key: "episode-\(download.id.uuidString)", duration: duration, shape: shape) {
                    return try await media.serve(rendition.url.path, type: rendition.contentType, name: nil, for: req)
                }
                return try await media.serve(file.path, type: "audio/mpeg", name: nil, for: req)
            }
        }
        guard let address = episode.enclosureURL, let url = URL(string: address) else {
            throw APIError(.notFound, code: "no_audio", "“\(episode.shownTitle)” has no audio file in its feed.")
        }
        return try await client.relay(url, for: req, maxBytes: config.maxUploadBytes)
    }

    /// `GET /api/episodes/{episodeID}/chapters`: the feed's chapters file, or the chapters the
    /// downloaded original carried, in the original's seconds.
    func chapters(req: Request) async throws -> EpisodeChapters {
        let (user, episode, _) = try await episode(req)
        if let address = episode.chaptersURL, let url = URL(string: address) {
            if let kept = chapterFiles.value(for: address) { return EpisodeChapters(source: "podcast:chapters", chapters: kept) }
            let generation = chapterFiles.generation
            do {
                let answer = try await client.get(url, accept: "application/json+chapters, application/json", maxBytes: Self.maxSideFileBytes)
                let parsed = try PodcastChapters.parse(Data(buffer: answer.body), url: answer.url).filter(\.inTableOfContents)
                let chapters = parsed.map { EpisodeChapter(title: $0.title, start: $0.start, end: $0.end, image: $0.image, url: $0.url) }
                chapterFiles.store(chapters, for: address, readAt: generation)
                return EpisodeChapters(source: "podcast:chapters", chapters: chapters)
            } catch let error as FeedError {
                // The podcast's server sent it: its fault, not the person's.
                throw error.answered(status: .badGateway, code: "chapters_unreadable", lead: "The episode's chapters file could not be read")
            }
        }
        if let download = try await podcasts.on(req).download(of: episode.id, ownedBy: user),
           let stored = download.chapters, let chapters = try? JSONDecoder().decode([EpisodeChapter].self, from: Data(stored.utf8)) {
            return EpisodeChapters(source: "file", chapters: chapters)
        }
        return EpisodeChapters(source: "none", chapters: [])
    }

    /// `GET /api/episodes/{episodeID}/transcript`: the feed's transcript (WebVTT, SRT, JSON or
    /// HTML, the timed ones preferred) as lines in the original's seconds.
    func transcript(req: Request) async throws -> EpisodeTranscript {
        let (_, episode, _) = try await episode(req)
        let links = (try? JSONDecoder().decode([ParsedTranscriptLink].self, from: Data(episode.transcripts.utf8))) ?? []
        let preference = ["text/vtt", "application/x-subrip", "application/srt", "application/json", "text/html"]
        let ranked = links.sorted { (preference.firstIndex(of: $0.type.lowercased()) ?? 9) < (preference.firstIndex(of: $1.type.lowercased()) ?? 9) }
        guard let link = ranked.first, let url = URL(string: link.url) else {
            throw APIError(.notFound, code: "no_transcript", "“\(episode.shownTitle)” has no transcript in its feed.")
        }
        if let kept = transcripts.value(for: link.url) { return EpisodeTranscript(lines: kept) }
        let generation = transcripts.generation
        do {
            let answer = try await client.get(url, accept: link.type, maxBytes: Self.maxSideFileBytes)
            let data = Data(buffer: answer.body)
            guard let format = Transcripts.format(type: link.type, data: data) else {
                throw APIError(.badGateway, code: "transcript_unreadable", "The episode's transcript is in a form Reverie cannot read (\(link.type)).")
            }
            let lines = try Transcripts.parse(data, format: format).map(TranscriptLine.init)
            transcripts.store(lines, for: link.url, readAt: generation)
            return EpisodeTranscript(lines: lines)
        } catch let error as FeedError {
            throw error.answered(status: .badGateway, code: "transcript_unreadable", lead: "The episode's transcript could not be read")
        }
    }

    /// `POST /api/episodes/{episodeID}/played` `{"played", "device"}`: marked in the listening
    /// log (an `ended` event, or `unplayed`, which also starts it again).
    func played(req: Request) async throws -> EpisodeInfo {
        let (user, episode, _) = try await episode(req)
        let body = try req.content.decode(EpisodePlayedRequest.self)
        let device = (body.device ?? "web").trimmingCharacters(in: .whitespaces)
        guard (1...60).contains(device.count) else { throw APIError(.badRequest, code: "invalid_field", "device: 1 to 60 characters.") }
        let length = episode.duration ?? 0
        let event = ProgressEvent(id: "mark-\(UUID().uuidString.lowercased())", device: device, at: now(),
                                  position: body.played ? max(length, 1) : 0, kind: body.played ? .ended : .unplayed)
        _ = try await progress.on(req).append([event], items: [Self.key(episode)], ownedBy: user)
        if body.played { try await afterPlayed([Self.key(episode)], req) }
        return try await self.episode(req: req)
    }

    // MARK: - Played, and delete-after-played

    /// After progress events: any of these episodes now played, in a podcast whose downloads go
    /// once played, loses its download.
    @Sendable func afterPlayed(_ items: [String], _ req: Request) async throws {
        let user = try req.user
        let ids = items.compactMap(ItemKey.init).filter { $0.kind == .podcast && $0.part == nil }.compactMap(\.uuid)
        guard !ids.isEmpty else { return }
        let repository = podcasts.on(req)
        let downloads = try await repository.downloads(ownedBy: user, episodes: ids)
        guard !downloads.isEmpty else { return }
        let places = try await progress.on(req).deciding(prefixed: Self.progressPrefix, ownedBy: user)
        for (episodeID, download) in downloads {
            guard let episode = try await repository.episode(episodeID),
                  let subscription = try await repository.subscription(to: episode.podcastID, ownedBy: user), subscription.deleteAfterPlayed,
                  ListeningProgress.isFinished(places[Self.key(episode)], duration: episode.duration ?? Self.originalDuration(download)) else { continue }
            EpisodeDownload.removeFiles(download.id, config)
            try await repository.delete(download)
        }
    }

    // MARK: -

    static func key(_ episode: EpisodeRecord) -> String {
        ItemKey(.podcast, episode.id).text
    }

    static func originalDuration(_ download: EpisodeDownloadRecord?) -> Double? {
        guard let download, let duration = download.duration else { return nil }
        return map(download).original(duration)
    }

    static func map(_ download: EpisodeDownloadRecord) -> TimeMap {
        TimeMap(kept: (try? JSONDecoder().decode([[Double]].self, from: Data(download.timeMap.utf8))) ?? [])
    }

    static func newestFirst(_ a: EpisodeRecord, _ b: EpisodeRecord) -> Bool {
        let left = a.published ?? a.firstSeenAt, right = b.published ?? b.firstSeenAt
        return left != right ? left > right : a.firstSeenAt > b.firstSeenAt
    }

    func refreshInterval(_ req: Request) -> TimeInterval {
        TimeInterval(config.feedRefreshMinutes * 60)
    }

    private func subscription(_ req: Request) async throws -> (AuthenticatedUser, SubscriptionRecord) {
        let user = try req.user
        let id = try req.uuidParameter("podcastID", naming: "podcast")
        guard let subscription = try await podcasts.on(req).subscription(to: id, ownedBy: user) else { throw APIError.notFound("podcast") }
        return (user, subscription)
    }

    /// An episode of a podcast the person subscribes to (any other is not found, as a missing one).
    private func episode(_ req: Request) async throws -> (AuthenticatedUser, EpisodeRecord, SubscriptionRecord) {
        let user = try req.user
        let id = try req.uuidParameter("episodeID", naming: "episode")
        guard let episode = try await podcasts.on(req).episode(id),
              let subscription = try await podcasts.on(req).subscription(to: episode.podcastID, ownedBy: user) else {
            throw APIError.notFound("episode")
        }
        return (user, episode, subscription)
    }

    private func jobsByID(_ ids: [UUID], _ req: Request) async throws -> [UUID: JobRecord] {
        let user = try req.user
        var jobs: [UUID: JobRecord] = [:]
        for id in ids { jobs[id] = try await jobRecords.on(req).find(id, ownedBy: user) }
        return jobs
    }

    static func info(_ subscription: SubscriptionRecord, counts: (all: Int, new: Int)) -> PodcastInfo {
        let podcast = subscription.podcast
        return PodcastInfo(id: podcast.id.uuidString.lowercased(), title: podcast.title, author: podcast.author, image: podcast.image,
                           feedURL: podcast.feedURL, link: podcast.link, favourite: subscription.favourite,
                           deleteAfterPlayed: subscription.deleteAfterPlayed, newEpisodes: counts.new, episodeCount: counts.all,
                           lastRefreshed: podcast.lastRefreshedAt, lastError: podcast.lastError, nextRefresh: podcast.nextRefreshAt,
                           feedRepairs: podcast.feedRepairs)
    }

    static func info(_ episode: EpisodeRecord, seenUntil: Date, place: ProgressEvent?, download: EpisodeDownloadRecord?, jobs: [UUID: JobRecord]) -> EpisodeInfo {
        let links = (try? JSONDecoder().decode([ParsedTranscriptLink].self, from: Data(episode.transcripts.utf8))) ?? []
        let downloadInfo = download.map { download -> EpisodeDownloadInfo in
            let job = download.jobID.flatMap { jobs[$0] }
            let map = Self.map(download)
            let progress = download.status == .ready ? 1 : (job?.progress ?? 0)
            let message = download.status == .ready ? nil : job?.message
            return EpisodeDownloadInfo(status: download.status, progress: progress, message: message, jobID: download.jobID?.uuidString.lowercased(),
                                       bytes: download.bytes, duration: download.duration, measuredLoudness: download.measuredLoudness,
                                       trimmedSilence: download.trimSilence, removedSeconds: map.removed(from: map.original(download.duration ?? 0)),
                                       timeMap: map.kept)
        }
        let duration = episode.duration ?? originalDuration(download)
        let position = place.map { $0.kind == .ended ? (duration ?? $0.position) : $0.position }
        return EpisodeInfo(id: episode.id.uuidString.lowercased(), podcastID: episode.podcastID.uuidString.lowercased(), title: episode.title.isEmpty ? nil : episode.title,
                           published: episode.published, duration: duration, description: episode.summary, image: episode.image,
                           enclosureURL: episode.enclosureURL, enclosureType: episode.enclosureType, enclosureLength: episode.enclosureLength,
                           hasChapters: episode.chaptersURL != nil || download?.chapters != nil, hasTranscript: !links.isEmpty,
                           isNew: episode.firstSeenAt > seenUntil, played: ListeningProgress.isFinished(place, duration: duration), position: position,
                           download: downloadInfo)
    }
}
