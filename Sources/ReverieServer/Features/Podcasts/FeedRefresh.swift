import Feeds
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// Reading a podcast's feed again: a conditional GET (its ETag and Last-Modified sent back, so an
/// unchanged feed costs a 304), new episodes added and changed ones updated, and after a failure
/// the next try put off, twice as long for each failure in a row, the reason kept for the
/// podcast's page.
struct FeedRefresh: Job {
    static let kind = JobKind.feedRefresh
    /// The largest feed read (a feed with 5,000 episodes and long show notes is ~20 MB).
    static let maxFeedBytes = 32 << 20
    /// The longest a failing feed is left before trying again.
    static let longestBackOff: TimeInterval = 24 * 3600

    /// The podcast whose feed is read.
    var podcastID: UUID

    struct Services: Sendable {
        let podcasts: Store<any PodcastRepository>
        let client: GuardedHTTPClient
        /// The usual time between refreshes.
        let interval: TimeInterval
        let now: @Sendable () -> Date
        let logger: Logger
        /// After a refresh that added episodes: podcast apps' actions waiting for them.
        var refreshed: @Sendable (PodcastRecord) async throws -> Void = { _ in }
    }

    struct Outcome: Sendable, Equatable {
        /// The feed answered 304.
        var notModified: Bool
        var added: Int
    }

    /// When to try again after `failures` failures in a row (0: the usual interval).
    static func delay(failures: Int, interval: TimeInterval) -> TimeInterval {
        min(longestBackOff, interval * pow(2, Double(min(failures, 16))))
    }

    /// Fetches and reads the feed, saving what it says on a copy of `podcast`; a failure is saved
    /// on the podcast (with the back-off) and thrown.
    @discardableResult
    static func refresh(_ podcast: PodcastRecord, repository: any PodcastRepository, client: GuardedHTTPClient,
                        interval: TimeInterval, now: Date) async throws -> Outcome {
        var podcast = podcast
        do {
            guard let url = URL(string: podcast.feedURL) else { throw OutsideFetchError.badURL(podcast.feedURL) }
            var headers: [String: String] = [:]
            if let etag = podcast.etag { headers["If-None-Match"] = etag }
            if let modified = podcast.lastModified { headers["If-Modified-Since"] = modified }
            let answer = try await client.get(url, accept: "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5",
                                              headers: headers, maxBytes: maxFeedBytes)
            var outcome = Outcome(notModified: answer.status == 304, added: 0)
            if !outcome.notModified {
                let feed = try FeedParser.parse(Data(buffer: answer.body), url: answer.url)
                podcast.title = String(feed.title.prefix(500))
                podcast.feedRepairs = feed.repairs.map(\.rawValue)
                podcast.author = feed.author.map { String($0.prefix(500)) }
                podcast.image = feed.image
                podcast.link = feed.link
                podcast.summary = feed.description.map { String(PlainText.fromHTML($0).prefix(4000)) }
                // Only a server that gives them gets them back.
                podcast.etag = answer.headers.first(name: "ETag")
                podcast.lastModified = answer.headers.first(name: "Last-Modified")
                outcome.added = try await repository.merge(feed.episodes, into: podcast.id, seenAt: now)
            }
            podcast.lastRefreshedAt = now
            podcast.failures = 0
            podcast.lastError = nil
            podcast.nextRefreshAt = now.addingTimeInterval(interval)
            try await repository.save(podcast)
            return outcome
        } catch {
            podcast.failures += 1
            podcast.lastError = message(for: error)
            podcast.nextRefreshAt = now.addingTimeInterval(delay(failures: podcast.failures, interval: interval))
            try? await repository.save(podcast)
            throw error
        }
    }

    /// What a person is told about a failed refresh.
    static func message(for error: any Error) -> String {
        switch error {
        case let error as OutsideFetchError: error.apiError.message
        case let error as FeedError: error.description
        case let error as any AbortError: error.reason
        default: "The feed could not be read: \(error)."
        }
    }

    /// The job: one podcast's refresh. A failure is the podcast's (shown on its page, tried again
    /// later), so the job itself ends done, saying what happened.
    func run(_ job: JobContext, _ services: Services) async throws -> JobOutput {
        guard let podcast = try await services.podcasts.outside.podcast(podcastID) else { return .none }
        await job.report(0.1, "Reading the feed…")
        do {
            let outcome = try await Self.refresh(podcast, repository: services.podcasts.outside, client: services.client,
                                                 interval: services.interval, now: services.now())
            if outcome.added > 0 {
                do {
                    try await services.refreshed(podcast)
                } catch {
                    services.logger.warning("feeds: apps' episode actions for \(podcast.feedURL) were not written: \(error)")
                }
            }
            return JobOutput(outcome: outcome.notModified ? "unchanged" : "\(outcome.added) new")
        } catch {
            // What the refresh saved on the podcast.
            let reason = Self.message(for: error)
            services.logger.info("feeds: \(podcast.feedURL) failed (\(podcast.failures + 1) in a row): \(reason)")
            return JobOutput(outcome: "failed", error: reason)
        }
    }

    /// Queues a refresh of each podcast that is due (one server takes each), as its earliest
    /// subscriber's job. Returns how many were queued.
    @discardableResult
    static func queueDue(podcasts: any PodcastRepository, jobs: JobQueue, now: Date) async throws -> Int {
        // The podcast is pushed on by the lease while its job waits and runs; the job sets the
        // real next time. A server that stops between the two leaves it for the lease's length.
        let due = try await podcasts.claimDue(now: now, leaseUntil: now.addingTimeInterval(15 * 60), limit: 50)
        var queued = 0
        for id in due {
            guard let owner = try await podcasts.anySubscriber(of: id), let podcast = try await podcasts.podcast(id) else { continue }
            try await queue(podcast, ownerID: owner, jobs: jobs)
            queued += 1
        }
        return queued
    }

    /// Queues a refresh of `podcast` as the job of the person with `ownerID`.
    @discardableResult
    static func queue(_ podcast: PodcastRecord, ownerID: UUID, jobs: JobQueue) async throws -> JobRecord {
        try await jobs.enqueue(FeedRefresh(podcastID: podcast.id), title: "Refreshing “\(podcast.title)”", ownerID: ownerID)
    }
}

/// Looks for feeds due for refresh once a minute while the server runs, on the injected clock (so
/// tests move it by hand).
final class FeedSchedule: Sendable {
    static let tick: Duration = .seconds(60)
    private let loop = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let ticks = NIOLockedValueBox(0)
    private let queueDue: @Sendable (Date) async throws -> Int
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// - Parameter queueDue: queues the refreshes due at a time; `FeedRefresh.queueDue` on the server's stores.
    init(clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = Date.init,
         logger: Logger = Logger(label: "reverie.feeds"), queueDue: @escaping @Sendable (Date) async throws -> Int) {
        self.clock = clock
        self.now = now
        self.logger = logger
        self.queueDue = queueDue
    }

    /// How many times the schedule has looked for due feeds.
    var looks: Int { ticks.withLockedValue { $0 } }

    func start() {
        loop.withLockedValue { loop in
            guard loop == nil else { return }
            loop = Task {
                while !Task.isCancelled {
                    await self.look()
                    self.ticks.withLockedValue { $0 += 1 }
                    do { try await self.clock.sleep(for: Self.tick) } catch { break }
                }
            }
        }
    }

    /// Looks now as well, without waiting for it (new subscriptions from an OPML file are due at once).
    func lookSoon() {
        Task { await look() }
    }

    private func look() async {
        do {
            try await queueDue(now())
        } catch {
            logger.warning("feeds: could not look for feeds to refresh: \(error)")
        }
    }

    func stop() async {
        let task = loop.withLockedValue { loop in defer { loop = nil }; return loop }
        task?.cancel()
        await task?.value
    }
}

struct FeedScheduleLifecycle: LifecycleHandler {
    let schedule: FeedSchedule

    func didBootAsync(_ application: Application) async throws {
        schedule.start()
    }

    func shutdownAsync(_ application: Application) async {
        await schedule.stop()
    }
}

extension JobKind {
    /// A podcast's feed read again.
    static let feedRefresh = JobKind(rawValue: "feeds.refresh")
}
