import Vapor

/// What `configure` sets up once and requests share.
struct AppServices: Sendable {
    let config: ServerConfig
    /// Accounts, for the command line (`reverie user`).
    let users: Store<any UserRepository>
    let hashing: PasswordHashing
    /// Speech renders in the background, with the engines and the render cache.
    let speech: SpeechJobs
    /// What is warm (engines, rhymes, narration), for health.
    let readiness: Readiness
    /// The rhyme engine, loaded once (by the warm-up, or by whoever asks first).
    let rhymes: RhymesProvider
    /// The meditation's audio files, made on first use or while the server warms up.
    let meditationAudio: MeditationAudio
    /// Wind Down's catalog and its audio: rendered scripts, the owner's uploads, timer renditions.
    let sleepAudio: SleepAudio
    /// Files answered from memory: the web app's, and the audio and captions players fetch.
    let files: FileCache
    /// The one client for outside fetches.
    let outside: GuardedHTTPClient
    /// The background job workers.
    let jobs: JobWorkers
    /// The one way to queue a job (it wakes `jobs`).
    let jobQueue: JobQueue
    /// The library's files and rows, for `reverie library import`.
    let library: LibraryStore
    /// The owner's audio for Wind Down items.
    let sleepAttachments: SleepAttachments
}

extension Application {
    private struct AppServicesKey: StorageKey {
        typealias Value = AppServices
    }

    var services: AppServices {
        get {
            guard let services = storage[AppServicesKey.self] else { fatalError("configure(_:_:) has not run") }
            return services
        }
        set { storage[AppServicesKey.self] = newValue }
    }

    /// The services once `configure` has made them (start-up work runs before).
    var configuredServices: AppServices? { storage[AppServicesKey.self] }

    var speech: SpeechJobs { services.speech }
    var readiness: Readiness { services.readiness }
    var meditationAudio: MeditationAudio { services.meditationAudio }
    var sleepAudio: SleepAudio { services.sleepAudio }
    var files: FileCache { services.files }
    var outside: GuardedHTTPClient { services.outside }
    var jobs: JobWorkers { services.jobs }

    /// The owner's audio for Wind Down items (`reverie winddown attach` and `detach`).
    public var sleepAttachments: SleepAttachments { services.sleepAttachments }

    /// Account creation and password checks on the application's database.
    public var accounts: AccountService {
        AccountService(users: services.users.outside, hasher: services.hashing)
    }
}
