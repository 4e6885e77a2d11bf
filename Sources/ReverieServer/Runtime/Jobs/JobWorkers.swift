import Foundation
import NIOConcurrencyHelpers
import Vapor

/// What a job's work sees: its input, and a way to say how far it got (which also renews its lease).
struct JobContext: Sendable {
    let id: UUID
    let ownerID: UUID
    let payload: String
    let report: @Sendable (_ progress: Double, _ message: String) async -> Void
}

/// The server's job workers: they take queued jobs from the table and run them, a few at a time.
/// Started with the server; woken at once when a job is added, and every few seconds otherwise
/// (for jobs another server added, or whose worker went away).
final class JobWorkers: Sendable {
    typealias Work = @Sendable (JobContext, Application) async throws -> String?

    static let lease: TimeInterval = 60
    /// A job this server adds wakes a worker at once (`poke`); the poll is for jobs another
    /// server added and for leases that ran out, so it can be slow: one small query now and then.
    static let poll: TimeInterval = 15
    static let maxAttempts = 3

    private let handlers: [String: Work]
    private let concurrency: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var loop: Task<Void, Never>?
        var running = 0
        var wake: CheckedContinuation<Void, Never>?
        var poked = false
        var tasks: [UUID: Task<Void, Never>] = [:]
    }

    init(handlers: [String: Work], concurrency: Int = 2) {
        self.handlers = handlers
        self.concurrency = concurrency
    }

    func start(_ app: Application) {
        state.withLockedValue { state in
            guard state.loop == nil else { return }
            state.loop = Task { await self.run(app) }
        }
    }

    /// Says a job was added: a worker looks now rather than at the next poll.
    func poke() {
        let waiting = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.poked = true
            defer { state.wake = nil }
            return state.wake
        }
        waiting?.resume()
    }

    func stop() async {
        let (loop, tasks) = state.withLockedValue { state in (state.loop, Array(state.tasks.values)) }
        loop?.cancel()
        poke()
        await loop?.value
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func run(_ app: Application) async {
        while !Task.isCancelled {
            let free = state.withLockedValue { $0.running < concurrency }
            if free, let job = await claim(app) {
                launch(job, app)
                continue
            }
            await sleep()
        }
    }

    private func claim(_ app: Application) async -> JobModel? {
        let now = Date()
        do {
            return try await app.repositories.jobs.claim(now: now, leaseUntil: now.addingTimeInterval(Self.lease), attemptsBelow: Self.maxAttempts)
        } catch {
            app.logger.warning("jobs: could not take a job: \(error)")
            return nil
        }
    }

    /// Until a poke or the poll's time, whichever comes first.
    private func sleep() async {
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(Self.poll * 1_000_000_000))
            if !Task.isCancelled { self.poke() }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state -> Bool in
                    if state.poked { state.poked = false; return true }
                    state.wake = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            state.withLockedValue { $0.poked = false }
        } onCancel: {
            self.poke()
        }
    }

    private func launch(_ job: JobModel, _ app: Application) {
        guard let id = job.id else { return }
        let context = JobContext(id: id, ownerID: job.$owner.id, payload: job.payload) { progress, message in
            try? await app.repositories.jobs.report(id, progress: progress, message: message, leaseUntil: Date().addingTimeInterval(Self.lease))
        }
        let work = handlers[job.kind]
        // Counted and kept under the lock it is made in, so its own clean-up (which takes the
        // lock) always comes after.
        state.withLockedValue { state in
          state.running += 1
          state.tasks[id] = Task {
            defer {
                self.state.withLockedValue { state in
                    state.running -= 1
                    state.tasks[id] = nil
                }
                self.poke()
            }
            guard let work else {
                try? await app.repositories.jobs.finish(id, status: "failed", message: "Reverie does not know this kind of job (\(job.kind)).", result: nil)
                return
            }
            do {
                let result = try await work(context, app)
                try? await app.repositories.jobs.finish(id, status: "done", message: nil, result: result)
            } catch is CancellationError {
                // The server is stopping: the lease runs out and another worker takes the job again.
            } catch {
                let message = (error as? any AbortError)?.reason ?? (error as? OutsideFetchError)?.apiError.message ?? "The job failed: \(error)"
                app.logger.info("jobs: \(job.kind) \(id) failed: \(message)")
                try? await app.repositories.jobs.finish(id, status: "failed", message: message, result: nil)
            }
          }
        }
    }
}

/// Starts the job workers with the server and lets running jobs stop before the database closes.
struct JobWorkersLifecycle: LifecycleHandler {
    func didBootAsync(_ application: Application) async throws {
        application.jobs.start(application)
    }

    func shutdownAsync(_ application: Application) async {
        await application.jobs.stop()
    }
}
