import Fluent
import Vapor

/// The repositories a request works with. Controllers reach rows only through these.
///
/// ## How the stores are built (issue 30)
///
/// Each feature's store is named by a protocol here, and that protocol is the seam: controllers
/// and jobs are given `any PodcastRepository`, never Fluent. The protocols answer
/// plain values rather than Fluent models, so that what leaves a store cannot be changed and
/// saved behind its back, and tests compare whole values. Jobs (`JobRecord`), meditation
/// sessions (`MeditationSessionRecord`), Bedside pieces (`BedsidePieceRecord`), song tracks
/// (`SongTrackRecord`), queues (the API's `QueueInfo`), library items (`LibraryItemRecord`), radio favourites
/// (`RadioStationInfo`), articles (`ArticleRecord`), compositions (the API's `Composition`),
/// accounts (`UserRecord`), their sessions and personal tokens (`AuthTokenRecord`), podcasts
/// (`PodcastRecord`, `EpisodeRecord`, `SubscriptionRecord`, `EpisodeDownloadRecord`), the
/// Podcast Index credentials, settings, listening progress and sleep audio all do: every repository
/// answers values.
///
/// Each protocol has one implementation, on Fluent, and there are no in-memory ones. Every API
/// test runs the real stores on a fresh SQLite database (and on PostgreSQL as well in
/// `make test`) in well under a second a test, so a second implementation would buy no speed; it
/// would only be a copy that could drift from the SQL that matters: the claims of jobs and due
/// feeds (one statement, with FOR UPDATE SKIP LOCKED on PostgreSQL), FTS5 search, and the
/// constraint failures that make a repeated upload count once and a taken username its own error.
public struct Repositories: Sendable {
    public var users: any UserRepository
    public var tokens: any AuthTokenRepository
    public var settings: any SettingsRepository
    public var speechRenders: any SpeechRenderRepository
    public var meditationSessions: any MeditationSessionRepository
    public var compositions: any CompositionRepository
    public var progress: any ProgressRepository
    public var sleepAudio: any SleepAudioRepository
    public var bedsidePieces: any BedsidePieceRepository
    public var library: any LibraryRepository
    public var jobs: any JobRepository
    public var podcasts: any PodcastRepository
    public var podcastIndexCredentials: any PodcastIndexCredentialsStore
    public var radioFavourites: any RadioFavouriteRepository
    public var articles: any ArticleRepository
    public var songTracks: any SongTrackRepository
    public var queues: any QueueRepository

    /// The Fluent implementations on one database. Writes to users and tokens make `signIns`
    /// (the server's recently read sessions) forget what they hold.
    static func fluent(_ database: any Database, signIns: Recent<String, SignIn>? = nil) -> Repositories {
        Repositories(
            users: FluentUserRepository(database: database, signIns: signIns),
            tokens: FluentAuthTokenRepository(database: database, signIns: signIns),
            settings: FluentSettingsRepository(database: database),
            speechRenders: FluentSpeechRenderRepository(database: database),
            meditationSessions: FluentMeditationSessionRepository(database: database),
            compositions: FluentCompositionRepository(database: database),
            progress: FluentProgressRepository(database: database),
            sleepAudio: FluentSleepAudioRepository(database: database),
            bedsidePieces: FluentBedsidePieceRepository(database: database),
            library: FluentLibraryRepository(database: database),
            jobs: FluentJobRepository(database: database),
            podcasts: FluentPodcastRepository(database: database),
            podcastIndexCredentials: FluentPodcastIndexCredentialsStore(database: database),
            radioFavourites: FluentRadioFavouriteRepository(database: database),
            articles: FluentArticleRepository(database: database),
            songTracks: FluentSongTrackRepository(database: database),
            queues: FluentQueueRepository(database: database)
        )
    }
}

extension Request {
    /// Repositories bound to this request's database connection.
    var repositories: Repositories { .fluent(db, signIns: services.signIns) }
}

extension Application {
    /// Repositories on the application's default database (CLI and start-up work).
    public var repositories: Repositories { .fluent(db, signIns: configuredServices?.signIns) }
}
