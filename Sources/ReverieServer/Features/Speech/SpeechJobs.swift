import AudioRender
import Foundation
import NIOConcurrencyHelpers
import Speech
import Vapor

/// Runs speech renders in the background for the API: the engines, the shared render cache,
/// each user's count of running renders, and the tasks to wait for at shutdown.
///
/// Each render row being spoken here is one waiter on its cache key in `RenderService`; letting
/// go of the row (`letGo`) stops its waiting, so the speaking stops when nobody else waits.
final class SpeechJobs: Sendable {
    let engines: SpeechEngines
    let service: RenderService
    /// This server, as the renders it speaks name it (several servers may share one database).
    let worker = UUID().uuidString
    /// A render whose server has not said it still speaks it for this long is taken over: its
    /// server stopped. Servers say so at every job poll (`JobWorkers.poll`, 15 s).
    static let stalledAfter: TimeInterval = 60
    private let running = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])
    /// The renders whose end is still to be settled here, with whom each is counted for (nil:
    /// taken over, counted for no one). Whoever takes a render out settles it: its task when it
    /// ends, or `letGo` when the person lets go of it first.
    private let unsettled = NIOLockedValueBox<[UUID: Reservation]>([:])
    private let perUser = NIOLockedValueBox<[UUID: Int]>([:])

    /// Whom a running render is counted for.
    private struct Reservation {
        let user: UUID?
    }

    init(engines: SpeechEngines, cacheDirectory: URL) {
        self.engines = engines
        self.service = RenderService(engines: engines, directory: cacheDirectory)
    }

    /// Counts a new render for `user` unless they already have `limit` running.
    func reserve(for user: UUID, limit: Int) -> Bool {
        perUser.withLockedValue { counts in
            guard counts[user, default: 0] < limit else { return false }
            counts[user, default: 0] += 1
            return true
        }
    }

    /// Gives back a reservation (after the render ends, or when it never started).
    func release(for user: UUID) {
        perUser.withLockedValue { counts in
            counts[user, default: 1] -= 1
            if counts[user, default: 0] <= 0 { counts[user] = nil }
        }
    }

    /// Renders in the background and records the outcome on the row. `reserve` must have said yes
    /// for `user` (nil: a render taken over from a server that stopped, counted for no one).
    func start(_ request: RenderService.Request, renderID: UUID, user: UUID?, repository: any SpeechRenderRepository,
               now: @escaping @Sendable () -> Date, logger: Logger) {
        unsettled.withLockedValue { $0[renderID] = Reservation(user: user) }
        running.withLockedValue { tasks in
            tasks[renderID] = Task {
                var duration: Int?
                var failure: String?
                do {
                    duration = try await self.service.render(request).durationMs
                } catch {
                    failure = ErrorTable.message(for: error, fallback: "Rendering failed")
                }
                // Let go of meanwhile: `letGo` settled it.
                if let reservation = self.unsettled.withLockedValue({ $0.removeValue(forKey: renderID) }) {
                    // Given back before the row says it ended: one who sees that may start the next at once.
                    if let user = reservation.user { self.release(for: user) }
                    if let failure { logger.warning("speech render \(renderID) failed: \(failure)") }
                    do {
                        try await repository.finish(renderID, durationMs: duration, error: failure, at: now())
                    } catch {
                        logger.error("could not record the end of speech render \(renderID): \(error)")
                    }
                }
                _ = self.running.withLockedValue { $0.removeValue(forKey: renderID) }
            }
        }
    }

    /// Lets go of a render being spoken here, for the person who asked for it: their reservation
    /// is given back at once and its task stops waiting (the speaking stops unless someone else
    /// waits for the same cache key). The caller records how it ended. False when the render is
    /// not running here (done, failed, or spoken by another server).
    func letGo(_ renderID: UUID) -> Bool {
        guard let reservation = unsettled.withLockedValue({ $0.removeValue(forKey: renderID) }) else { return false }
        if let user = reservation.user { release(for: user) }
        running.withLockedValue { $0[renderID] }?.cancel()
        return true
    }

    /// Says this server still speaks its renders, and takes over those whose server stopped: each
    /// is spoken again here from its script (the speech cache keeps what was already spoken), or
    /// failed with a reason when it has none (a render from before scripts were kept). First it
    /// lets go of those it speaks that the database no longer gives it: let go of by their person
    /// through another server (`DELETE` answered there), taken over, or their person removed, so
    /// the speaking stops here within a poll. Run at start and at every job poll.
    func takeOverStalled(repository: any SpeechRenderRepository, now: @escaping @Sendable () -> Date, logger: Logger) async {
        let time = now()
        do {
            let mine = unsettled.withLockedValue { Array($0.keys) }
            for id in try await repository.notSpoken(by: worker, among: mine) where letGo(id) {
                logger.info("speech render \(id): ended elsewhere; no longer spoken here")
            }
        } catch {
            logger.warning("speech renders: could not look for renders ended elsewhere: \(error)")
        }
        do {
            try await repository.heartbeat(worker: worker, at: time)
            for render in try await repository.takeStalled(worker: worker, staleBefore: time.addingTimeInterval(-Self.stalledAfter), at: time) {
                guard let script = render.script, let format = AudioEncoder.Format(rawValue: render.format) else {
                    try await repository.finish(render.id, durationMs: nil, error: "The server stopped during this render; start it again.", at: time)
                    continue
                }
                logger.notice("speech render \(render.id): its server stopped; speaking it here")
                start(RenderService.Request(script: script, voice: render.voice, rate: render.rate, format: format),
                      renderID: render.id, user: nil, repository: repository, now: now, logger: logger)
            }
        } catch {
            logger.warning("speech renders: could not look for renders whose server stopped: \(error)")
        }
    }

    /// Waits for every running render (at shutdown, before the database closes), then stops workers.
    func finishAll() async {
        let tasks = running.withLockedValue { Array($0.values) }
        for task in tasks { await task.value }
        await engines.shutdown()
    }
}

/// Lets running renders finish before the application closes its database.
struct SpeechJobsLifecycle: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        await application.speech.finishAll()
    }
}
