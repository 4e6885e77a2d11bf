import Foundation
import Logging
import Vapor

/// Podcasts: subscriptions, feeds refreshed on a schedule and on request (jobs), episodes with
/// their places, downloads levelled for the night, and Podcast Index search.
struct PodcastsFeature: Feature {
    /// The routes; listening progress asks it what follows a played mark (`afterPlayed`).
    let controller: PodcastController
    let jobs: [JobRunner]
    /// Looks for feeds due for refresh while the server runs.
    let lifecycle: [any LifecycleHandler]
    var routes: [any RouteCollection] { [controller] }

    /// - Parameter clock: what the feed schedule waits on; tests pass a test clock.
    init(podcasts: Store<any PodcastRepository>, podcastIndexCredentials: Store<any PodcastIndexCredentialsStore>,
         progress: Store<any ProgressRepository>, jobRecords: Store<any JobRepository>, media: MediaFiles, renditions: Renditions,
         client: GuardedHTTPClient, threadPool: NIOThreadPool, config: ServerConfig, queue: JobQueue, clock: any Clock<Duration>,
         now: @escaping @Sendable () -> Date, logger: Logger, refreshed: @escaping @Sendable (PodcastRecord) async throws -> Void = { _ in }) {
        let feeds = FeedSchedule(clock: clock, now: now, logger: logger) { time in
            try await FeedRefresh.queueDue(podcasts: podcasts.outside, jobs: queue, now: time)
        }
        controller = PodcastController(podcastIndexCredentials: podcastIndexCredentials, podcasts: podcasts, progress: progress,
                                       jobRecords: jobRecords, media: media, renditions: renditions, jobs: queue, feeds: feeds, client: client,
                                       config: config, now: now, refreshed: refreshed)
        jobs = [
            JobRunner(FeedRefresh.self, .init(podcasts: podcasts, client: client, interval: TimeInterval(config.feedRefreshMinutes * 60),
                                              now: now, logger: logger, refreshed: refreshed)),
            JobRunner(EpisodeDownload.self, .init(podcasts: podcasts, client: client, config: config, threadPool: threadPool)),
        ]
        lifecycle = [FeedScheduleLifecycle(schedule: feeds)]
    }
}
