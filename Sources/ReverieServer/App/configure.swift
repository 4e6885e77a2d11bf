import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import NIOSSL
import Backups
import Bedside
import Breathing
import SleepLibrary
import Speech
import Vapor

/// Builds the whole app on `app`: database and migrations, services, middleware and routes.
/// The one composition root; `reverie serve`, `reverie user` and the tests all call it.
///
/// - Parameters:
///   - now: the clock for sessions and the login throttle; tests pass their own.
///   - speech: the speech engines; those installed on this machine (`SpeechEngines.installed()`) when nil.
///   - clock: what background loops (the job workers' poll, the feed schedule) wait on; tests pass a test clock.
public func configure(_ app: Application, _ config: ServerConfig, now: @escaping @Sendable () -> Date = Date.init,
                      clock: any Clock<Duration> = ContinuousClock(), speech: SpeechEngines? = nil) async throws {
    // MARK: - Database
    switch config.database {
    case let .sqlite(path):
        if let path {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            app.databases.use(.sqlite(.file(path)), as: .sqlite)
        } else {
            app.databases.use(.sqlite(.memory), as: .sqlite)
        }
    case let .postgres(url, searchPath):
        var configuration = try SQLPostgresConfiguration(url: url)
        configuration.searchPath = searchPath
        app.databases.use(.postgres(configuration: configuration), as: .psql)
    }
    try FileManager.default.createDirectory(atPath: config.dataDirectory, withIntermediateDirectories: true)

    app.migrations.add(CreateAccounts())
    app.migrations.add(CreateSpeechRenders())
    app.migrations.add(CreateMeditationSessions())
    app.migrations.add(CreateCompositions())
    app.migrations.add(KeyCompositionSearchByRowid())
    app.migrations.add(AddPasswordChangeRequired())
    app.migrations.add(CreateProgressEvents())
    app.migrations.add(CreateSleepAudio())
    app.migrations.add(CreateBedsidePieces())
    app.migrations.add(CreateLibraryItems())
    app.migrations.add(CreateJobs())
    app.migrations.add(CreatePodcasts())
    app.migrations.add(CreateArticles())
    app.migrations.add(AddPlans())
    app.migrations.add(CreateSongTracks())
    app.migrations.add(AddRenderWorkers())
    app.migrations.add(AddProgressPlaces())
    app.migrations.add(AddFeedRepairs())
    app.migrations.add(CreateQueues())
    app.migrations.add(LowercaseQueueItems())
    app.migrations.add(CreateApps())
    app.migrations.add(AddAppClients())
    if let sql = app.db as? any SQLDatabase {
        switch config.database {
        case .sqlite(.some):
            // WAL lets readers go on while a write commits; it is a property of the file and sticks.
            try await sql.raw("PRAGMA journal_mode=WAL").run()
        case let .postgres(_, searchPath?) where !searchPath.isEmpty:
            // A deployment (or a test) that keeps Reverie in its own schema gets it made on first start.
            try await sql.raw("CREATE SCHEMA IF NOT EXISTS \(ident: searchPath[0])").run()
        default:
            break
        }
    }
    try await app.autoMigrate()
    if case .sqlite(.some) = config.database { try await prepareSQLiteConnections(app) }

    // MARK: - Stores
    // Each feature is given the stores it uses; each store is made on the request's database.
    let signIns = Recent<String, SignIn>(lifetime: SessionAuthenticator.recheckAfter)
    let users: Store<any UserRepository> = app.store { FluentUserRepository(database: $0, signIns: signIns) }
    let tokens: Store<any AuthTokenRepository> = app.store { FluentAuthTokenRepository(database: $0, signIns: signIns) }
    let settings: Store<any SettingsRepository> = app.store { FluentSettingsRepository(database: $0) }
    let speechRenders: Store<any SpeechRenderRepository> = app.store { FluentSpeechRenderRepository(database: $0) }
    let progress: Store<any ProgressRepository> = app.store { FluentProgressRepository(database: $0) }
    let libraryItems: Store<any LibraryRepository> = app.store { FluentLibraryRepository(database: $0) }
    let jobRecords: Store<any JobRepository> = app.store { FluentJobRepository(database: $0) }
    let podcasts: Store<any PodcastRepository> = app.store { FluentPodcastRepository(database: $0) }
    let articles: Store<any ArticleRepository> = app.store { FluentArticleRepository(database: $0) }
    let compositions: Store<any CompositionRepository> = app.store { FluentCompositionRepository(database: $0) }

    // MARK: - Runtime parts
    let engines: SpeechEngines
    if let speech { engines = speech } else { engines = await SpeechEngines.installed() }
    let speech = SpeechJobs(engines: engines, cacheDirectory: config.cacheDirectory("speech"))
    // Renders whose server stopped (this one before a restart, or another sharing the database)
    // are spoken here: now, and at every job poll (the workers below).
    await speech.takeOverStalled(repository: speechRenders.outside, now: now, logger: app.logger)
    let readiness = Readiness(engines)
    let rhymes = RhymesProvider(cacheDirectory: config.cacheDirectory("rhymes"), readiness: readiness)
    let manifest = try MeditationManifest.bundled()
    let meditationAudio = MeditationAudio(manifest: manifest, narration: try MeditationNarration.bundled(), jobs: speech,
                                          cacheDirectory: config.cacheDirectory("meditation"))
    let sleepLibrary = try SleepLibrary.bundled()
    let bedsideLibrary = try BedsideLibrary.bundled()
    let outside = GuardedHTTPClient(policy: GuardedHTTPClient.Policy(allowPrivate: config.allowPrivateFetches).patient(Int64(config.patience)), group: app.eventLoopGroup)
    let library = LibraryStore(config: config, repository: libraryItems, threadPool: app.threadPool)
    let backups = Backups(directory: URL(fileURLWithPath: config.dataDirectory, isDirectory: true).appendingPathComponent("backups"))
    guard let sql = app.db as? any SQLDatabase else { throw BackupError.tool("backup", "the database does not speak SQL") }
    let workers = JobWorkers(repository: jobRecords, clock: clock, now: now, logger: app.logger,
                             atEachPoll: { [logger = app.logger] in await speech.takeOverStalled(repository: speechRenders.outside, now: now, logger: logger) })
    let queue = JobQueue(repository: jobRecords, workers: workers)
    let files = FileCache(largest: config.fileCacheBytes / 2, budget: config.fileCacheBytes)
    var media = MediaFiles(cache: files, threadPool: app.threadPool, incomingDirectory: config.mediaDirectory(".incoming"))
    media.dataDirectory = URL(fileURLWithPath: config.dataDirectory).standardizedFileURL.path  // absolute, as the files' paths are
    media.front = config.front
    let hashing = try PasswordHashing(cost: config.bcryptCost, threadPool: app.threadPool)
    let throttle = LoginThrottle(now: now)
    let bedsideSounds = SynthesizedAudio(directory: config.cacheDirectory("bedside"))
    let sleepAudio = SleepAudio(library: sleepLibrary, engines: engines, cacheDirectory: config.cacheDirectory("sleep"),
                                liveDirectory: config.cacheDirectory("sleep-live"), mediaDirectory: config.mediaDirectory("winddown"))
    let renditions = Renditions(directory: config.cacheDirectory("renditions"))
    let sleepAttachments = SleepAttachments(sleepAudio: sleepAudio, store: app.store { FluentSleepAudioRepository(database: $0) }, files: files,
                                            directory: config.mediaDirectory("winddown"))

    // MARK: - Features
    let librivox = LibriVoxFeature(client: outside, library: library, config: config, queue: queue)
    let gpodder: Store<any GpodderRepository> = app.store { FluentGpodderRepository(database: $0) }
    let episodeActions = EpisodeActionLog(actions: gpodder, podcasts: podcasts, progress: progress, users: users)
    let podcastsFeature = PodcastsFeature(podcasts: podcasts, podcastIndexCredentials: app.store { FluentPodcastIndexCredentialsStore(database: $0) },
                                          progress: progress, jobRecords: jobRecords, media: media, renditions: renditions, client: outside,
                                          threadPool: app.threadPool, config: config, queue: queue, clock: clock, now: now, logger: app.logger,
                                          refreshed: { try await episodeActions.refreshed($0) })
    let apps: Store<any AppRepository> = app.store { FluentAppRepository(database: $0) }
    let appGate = AppGate(apps: apps, throttle: throttle, front: config.front, secureCookies: config.secureCookies, now: now)
    let articlesFeature = ArticlesFeature(articles: articles, media: media, client: outside, config: config, queue: queue, now: now)
    let artwork = ArtworkStore(directory: config.cacheDirectory("artwork"), client: outside)
    let features: [any Feature] = [
        HealthFeature(databaseKind: config.database.kind, readiness: readiness, engines: engines),
        SpeechFeature(speechRenders: speechRenders, media: media, speech: speech, config: config, now: now, logger: app.logger),
        WriteFeature(compositions: compositions, songTracks: app.store { FluentSongTrackRepository(database: $0) }, libraryItems: libraryItems,
                     library: library, media: media, rhymes: rhymes, threadPool: app.threadPool, config: config, now: now),
        ProgressFeature(progress: progress, afterPlayed: podcastsFeature.controller.afterPlayed, library: sleepLibrary, bedside: bedsideLibrary, now: now),
        WindDownFeature(progress: progress, media: media, sleepAudio: sleepAudio, renditions: renditions,
                        attachments: sleepAttachments, library: sleepLibrary, config: config, now: now),
        BedsideFeature(settings: settings, bedsidePieces: app.store { FluentBedsidePieceRepository(database: $0) }, media: media,
                       sounds: bedsideSounds, renditions: renditions, library: bedsideLibrary,
                       nightStreamSeconds: config.nightStreamSeconds, now: now),
        LibraryFeature(progress: progress, library: library, media: media, renditions: renditions, config: config),
        StreamsFeature(library: library, podcasts: podcasts, speechRenders: speechRenders, speech: speech, librivox: librivox.controller,
                       client: outside, config: config),
        librivox,
        QueuesFeature(queues: app.store { FluentQueueRepository(database: $0) }, podcasts: podcasts, library: libraryItems, articles: articles,
                      librivox: librivox.controller),
        JobsFeature(jobRecords: jobRecords),
        ArtworkFeature(store: artwork),
        BackupFeature(jobRecords: jobRecords, backups: backups, database: sql, config: config, queue: queue, now: now),
        articlesFeature,
        podcastsFeature,
        RadioFeature(radioFavourites: app.store { FluentRadioFavouriteRepository(database: $0) }, client: outside, config: config),
        MeditateFeature(meditationSessions: app.store { FluentMeditationSessionRepository(database: $0) }, media: media, manifest: manifest,
                        audio: meditationAudio, now: now),
        AccountsFeature(users: users, tokens: tokens, speechRenders: speechRenders, podcasts: podcasts, library: library,
                        meditationAudio: meditationAudio, speech: speech, artwork: artwork, hashing: hashing, throttle: throttle, config: config, now: now),
        AppsFeature(apps: apps, passwords: AppPasswords(dataDirectory: config.dataDirectory),
                    gpodder: GpodderController(gate: appGate,
                                               podcasts: podcastsFeature.controller, repository: podcasts, devices: gpodder,
                                               log: episodeActions, now: now),
                    wallabag: WallabagController(apps: apps, articles: articles, marks: app.store { FluentArticleMarkRepository(database: $0) },
                                                 saving: articlesFeature.controller,
                                                 gate: appGate, now: now)),
        PlansFeature(users: users, developmentMode: config.developmentMode),
        SettingsFeature(settings: settings, developmentMode: config.developmentMode),
        WebAppFeature(webDirectory: config.webDirectory),
    ]
    workers.run(features.flatMap(\.jobs))

    app.services = AppServices(
        config: config,
        users: users,
        hashing: hashing,
        speech: speech,
        readiness: readiness,
        rhymes: rhymes,
        meditationAudio: meditationAudio,
        sleepAudio: sleepAudio,
        files: files,
        outside: outside,
        jobs: workers,
        jobQueue: queue,
        library: library,
        sleepAttachments: sleepAttachments
    )
    app.lifecycle.use(SpeechJobsLifecycle())
    app.lifecycle.use(JobWorkersLifecycle(workers: workers))
    for handler in features.flatMap(\.lifecycle) { app.lifecycle.use(handler) }
    app.lifecycle.use(WarmupLifecycle())
    // Last, so it stops first: the requests under way are answered before the jobs stop and the
    // database closes.
    let underWay = RequestsUnderWay()
    app.lifecycle.use(underWay)

    // MARK: - HTTP
    app.http.server.configuration.hostname = config.host
    app.http.server.configuration.port = config.port
    app.http.server.configuration.idleTimeout = .seconds(Int64(config.idleTimeoutSeconds))
    // Vapor's per-request metrics (a counter and a timer, their labels built from the route) go
    // nowhere without a metrics backend, and cost a fifth of a small request's time.
    app.http.server.configuration.reportMetrics = false
    app.routes.defaultMaxBodySize = ByteCount(value: config.maxBodyBytes)

    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom(ISO8601Dates.decode)
    ContentConfiguration.global.use(encoder: encoder, for: .json)
    ContentConfiguration.global.use(decoder: CheckedJSONDecoder(json: decoder), for: .json)

    for routes in features.flatMap(\.routes) { try app.register(collection: routes) }
    let httpsRegistry = HTTPSRegistry()
    app.httpsRegistry = httpsRegistry
    try app.register(collection: WelcomeController(registry: httpsRegistry, settings: config.tls, host: config.host, webDirectory: config.webDirectory))

    // After the routes, so the web app knows which of its paths they answer.
    app.middleware = Middlewares()
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(APIErrorMiddleware())
    app.middleware.use(underWay)
    app.middleware.use(PlainHTTPGuard(registry: httpsRegistry))
    app.middleware.use(WebAppMiddleware(webDirectory: config.webDirectory, routes: app.routes, cache: app.files))
    app.middleware.use(RequestBodyGuard(defaultLimit: config.maxBodyBytes))
    app.middleware.use(SessionAuthenticator(tokens: tokens, sessionLifetime: config.sessionLifetime, signIns: signIns, now: now))

}

/// Settings SQLite keeps per connection, not in the file, made on each pooled connection: one
/// per event loop (Fluent's SQLite pool holds one each and keeps it). Neither SQLiteNIO nor
/// sqlite-kit offers a hook for new connections, so they are opened here, at start.
/// - `busy_timeout`: a connection waits for another's write instead of failing at once with
///   SQLITE_BUSY (with two event loops, two writes at the same moment gave a 500), and as long as
///   a request waits for a pooled connection (10 s): a machine starved enough to exceed it
///   answers 503 busy from the pool, while a "database is locked" stays a bug to find (a
///   transaction that reads before it writes fails at once, whatever the timeout).
/// - `secure_delete`: freed pages are zeroed, so removed words do not stay readable in the file
///   (the bundled SQLite is built with it on; said here so it does not depend on that).
private func prepareSQLiteConnections(_ app: Application) async throws {
    for loop in app.eventLoopGroup.makeIterator() {
        guard let sql = app.databases.database(logger: app.logger, on: loop) as? any SQLDatabase else { continue }
        try await sql.raw("PRAGMA busy_timeout = 10000").run()
        try await sql.raw("PRAGMA secure_delete = ON").run()
    }
}
