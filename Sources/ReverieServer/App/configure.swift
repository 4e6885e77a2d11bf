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

    // MARK: - Services
    let engines: SpeechEngines
    if let speech { engines = speech } else { engines = await SpeechEngines.installed() }
    let jobs = SpeechJobs(engines: engines, cacheDirectory: config.cacheDirectory("speech"))
    // Renders whose server stopped (this one before a restart, or another sharing the database)
    // are spoken here: now, and at every job poll (the workers below).
    let renderRepository = app.repositories.speechRenders
    await jobs.takeOverStalled(repository: renderRepository, now: now, logger: app.logger)
    let readiness = Readiness(engines)
    let rhymes = RhymesProvider(cacheDirectory: config.cacheDirectory("rhymes"), readiness: readiness)
    let manifest = try MeditationManifest.bundled()
    let meditationAudio = MeditationAudio(manifest: manifest, narration: try MeditationNarration.bundled(), jobs: jobs,
                                          cacheDirectory: config.cacheDirectory("meditation"))
    let sleepLibrary = try SleepLibrary.bundled()
    let outside = GuardedHTTPClient(policy: GuardedHTTPClient.Policy(allowPrivate: config.allowPrivateFetches).patient(Int64(config.patience)), group: app.eventLoopGroup)
    let stores = app.repositories
    let library = LibraryStore(config: config, repository: stores.library, threadPool: app.threadPool)
    let backups = Backups(directory: URL(fileURLWithPath: config.dataDirectory, isDirectory: true).appendingPathComponent("backups"))
    guard let sql = app.db as? any SQLDatabase else { throw BackupError.tool("backup", "the database does not speak SQL") }
    let workers = JobWorkers(runners: [
        JobRunner(LibriVoxDownload.self, .init(catalog: LibriVoxCatalog(base: config.librivoxBaseURL, client: outside), client: outside, store: library,
                                               incomingDirectory: config.mediaDirectory(".incoming"), maxBytes: config.maxUploadBytes)),
        JobRunner(FeedRefresh.self, .init(podcasts: stores.podcasts, client: outside, interval: TimeInterval(config.feedRefreshMinutes * 60),
                                          now: now, logger: app.logger)),
        JobRunner(EpisodeDownload.self, .init(podcasts: stores.podcasts, client: outside, config: config, threadPool: app.threadPool)),
        JobRunner(ArticleImport.self, .init(articles: stores.articles, client: outside, config: config)),
        JobRunner(ServerBackup.self, .init(backups: backups, config: config, database: sql, now: now)),
    ], repository: stores.jobs, clock: clock, now: now, logger: app.logger,
       atEachPoll: { [logger = app.logger] in await jobs.takeOverStalled(repository: renderRepository, now: now, logger: logger) })
    let jobQueue = JobQueue(repository: stores.jobs, workers: workers)
    let feedSchedule = FeedSchedule(clock: clock, now: now, logger: app.logger) { [podcasts = stores.podcasts] time in
        try await FeedRefresh.queueDue(podcasts: podcasts, jobs: jobQueue, now: time)
    }
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
    let sleepAttachments = SleepAttachments(sleepAudio: sleepAudio, store: stores.sleepAudio, files: files,
                                            directory: config.mediaDirectory("winddown"))
    app.services = AppServices(
        config: config,
        hashing: hashing,
        throttle: throttle,
        now: now,
        speech: jobs,
        readiness: readiness,
        rhymes: rhymes,
        meditationAudio: meditationAudio,
        sleepAudio: sleepAudio,
        files: files,
        signIns: Recent(lifetime: SessionAuthenticator.recheckAfter),
        bedsideSounds: bedsideSounds,
        outside: outside,
        jobs: workers,
        jobQueue: jobQueue,
        feedSchedule: feedSchedule,
        sleepAttachments: sleepAttachments
    )
    app.lifecycle.use(SpeechJobsLifecycle())
    app.lifecycle.use(JobWorkersLifecycle(workers: workers))
    app.lifecycle.use(FeedScheduleLifecycle(schedule: feedSchedule))
    app.lifecycle.use(WarmupLifecycle())

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
    ContentConfiguration.global.use(decoder: decoder, for: .json)

    try app.register(collection: HealthController(databaseKind: config.database.kind, readiness: readiness, engines: engines))
    try app.register(collection: SpeechController(media: media, speech: jobs, renders: stores.speechRenders, maxCharacters: config.speechMaxCharacters, maxConcurrentRenders: config.speechMaxConcurrentRenders, now: now, logger: app.logger,
                                                       firstPhraseWait: .seconds(30 * config.patience)))
    try app.register(collection: CompositionController(rhymes: rhymes, threadPool: app.threadPool, now: now))
    try app.register(collection: SongTrackController(media: media, store: library, practiceDirectory: config.cacheDirectory("practice")))
    try app.register(collection: RhymesController(rhymes: rhymes, threadPool: app.threadPool))
    let bedsideLibrary = try BedsideLibrary.bundled()
    try app.register(collection: ProgressController(now: now, afterPlayed: { items, req in try await PodcastController.afterPlayed(items, config: config, req) }, library: sleepLibrary, bedside: bedsideLibrary))
    try app.register(collection: WindDownController(media: media, sleepAudio: sleepAudio, renditions: renditions, attachments: sleepAttachments, now: now, library: sleepLibrary, maxUploadBytes: config.maxUploadBytes,
                                                          firstSoundWait: .seconds(30 * config.patience)))
    try app.register(collection: BedsideController(media: media, sounds: bedsideSounds, now: now, library: bedsideLibrary))
    try app.register(collection: LibraryController(media: media, store: library, renditions: renditions, maxUploadBytes: config.maxUploadBytes))
    let librivox = LibriVoxController(base: config.librivoxBaseURL, client: outside, jobs: jobQueue, maxBytes: config.maxUploadBytes)
    try app.register(collection: librivox)
    try app.register(collection: QueueController(librivox: librivox))
    try app.register(collection: JobController())
    try app.register(collection: ArtworkController(store: ArtworkStore(directory: config.cacheDirectory("artwork"), client: outside)))
    try app.register(collection: BackupController(backups: backups, jobs: jobQueue))
    try app.register(collection: ArticleController(media: media, client: outside, maxUploadBytes: config.maxUploadBytes, now: now, jobs: jobQueue))
    try app.register(collection: PodcastController(media: media, renditions: renditions, jobs: jobQueue, feeds: feedSchedule, client: outside, config: config, now: now))
    try app.register(collection: RadioController(directory: RadioBrowser(base: config.radioBrowserBaseURL), client: outside, maxBytes: config.maxUploadBytes,
                                                  hls: HLSRelay(client: outside)))
    try app.register(collection: MeditationController(media: media, now: now, manifest: manifest, audio: meditationAudio))
    try app.register(collection: AuthController(hashing: hashing, throttle: throttle, sessionLifetime: config.sessionLifetime, secureCookies: config.secureCookies, front: config.front, now: now))
    try app.register(collection: TokenController())
    try app.register(collection: UserController(hashing: hashing, removal: AccountRemoval(library: library, meditationAudio: meditationAudio, speech: jobs, config: config)))
    try app.register(collection: PlanController(developmentMode: config.developmentMode))
    try app.register(collection: SettingsController(entitlements: Entitlements(developmentMode: config.developmentMode)))
    try app.register(collection: OpenAPIController(webDirectory: config.webDirectory))
    try app.register(collection: ManifestController(webDirectory: config.webDirectory))
    let httpsRegistry = HTTPSRegistry()
    app.httpsRegistry = httpsRegistry
    try app.register(collection: WelcomeController(registry: httpsRegistry, settings: config.tls, host: config.host, webDirectory: config.webDirectory))

    // After the routes, so the web app knows which of its paths they answer.
    app.middleware = Middlewares()
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(APIErrorMiddleware())
    app.middleware.use(PlainHTTPGuard(registry: httpsRegistry))
    app.middleware.use(WebAppMiddleware(webDirectory: config.webDirectory, routes: app.routes, cache: app.files))
    app.middleware.use(SessionAuthenticator(sessionLifetime: config.sessionLifetime, signIns: app.services.signIns, now: now))

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
