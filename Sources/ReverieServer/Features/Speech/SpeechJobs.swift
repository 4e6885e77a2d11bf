import Foundation
import NIOConcurrencyHelpers
import Speech
import Vapor

/// Runs speech renders in the background for the API: the engines, the shared render cache,
/// each user's count of running renders, and the tasks to wait for at shutdown.
final class SpeechJobs: Sendable {
    let engines: SpeechEngines
    let service: RenderService
    private let running = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])
    private let perUser = NIOLockedValueBox<[UUID: Int]>([:])

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

    /// Renders in the background and records the outcome on the row. `reserve` must have said yes.
    func start(_ request: RenderService.Request, renderID: UUID, user: UUID, repository: any SpeechRenderRepository,
               now: @escaping @Sendable () -> Date, logger: Logger) {
        running.withLockedValue { tasks in
            tasks[renderID] = Task {
                var duration: Int?
                var failure: String?
                do {
                    duration = try await self.service.render(request).durationMs
                } catch {
                    failure = ErrorTable.message(for: error, fallback: "Rendering failed")
                }
                if let failure { logger.warning("speech render \(renderID) failed: \(failure)") }
                do {
                    try await repository.finish(renderID, durationMs: duration, error: failure, at: now())
                } catch {
                    logger.error("could not record the end of speech render \(renderID): \(error)")
                }
                self.release(for: user)
                _ = self.running.withLockedValue { $0.removeValue(forKey: renderID) }
            }
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
