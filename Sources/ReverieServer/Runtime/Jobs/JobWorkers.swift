import Foundation
import Logging
import NIOConcurrencyHelpers
import Vapor

/// The server's job workers: they take queued jobs from the table and run them, a few at a time.
/// Started with the server; woken at once when a job is added here (`poke`), and at each poll
/// otherwise (for jobs another server added, or whose worker went away). Time comes from the
/// injected clock and `now`, so tests run the poll and the leases in virtual time.
final class JobWorkers: Sendable {
    static let lease: TimeInterval = 60
    /// A job this server adds wakes a worker at once (`poke`); the poll is for jobs another
    /// server added and for leases that ran out, so it can be slow: one small query now and then.
    static let poll: Duration = .seconds(15)
    static let maxAttempts = 3

    /// Every kind of job with its services, by kind; given once by `run(_:)` before `start()`.
    private let runners = NIOLockedValueBox<[String: JobRunner]>([:])
    private let store: Store<any JobRepository>
    /// The jobs table, on a connection from any event loop's pool each time it is asked for.
    private var repository: any JobRepository { store.outside }
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let concurrency: Int
    private let atEachPoll: @Sendable () async -> Void
    private let state = NIOLockedValueBox(State())

    private struct State {
        var loop: Task<Void, Never>?
        var running = 0
        var wake: CheckedContinuation<Void, Never>?
        var poked = false
        var tasks: [UUID: Task<Void, Never>] = [:]
        /// Polls begun, for tests that move the clock once a worker waits on it.
        var polls = 0
    }

    /// - Parameters:
    ///   - clock: what the poll waits on.
    ///   - now: the time leases are measured in.
    ///   - atEachPoll: also done each time the workers look for jobs (the speech renders' heartbeat).
    init(repository: Store<any JobRepository>, clock: any Clock<Duration> = ContinuousClock(),
         now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "reverie.jobs"), concurrency: Int = 2,
         atEachPoll: @escaping @Sendable () async -> Void = {}) {
        self.atEachPoll = atEachPoll
        self.store = repository
        self.clock = clock
        self.now = now
        self.logger = logger
        self.concurrency = concurrency
    }

    /// The kinds of job these workers run (every feature's `jobs`), each with its services. The
    /// workers are made before the features, as the features queue their jobs through them.
    func run(_ kinds: [JobRunner]) {
        runners.withLockedValue { runners in
            for runner in kinds where runners[runner.kind.rawValue] == nil { runners[runner.kind.rawValue] = runner }
        }
    }

    /// The kinds of job these workers run.
    var kinds: Set<JobKind> { runners.withLockedValue { Set($0.values.map(\.kind)) } }

    func start() {
        state.withLockedValue { state in
            guard state.loop == nil else { return }
            state.loop = Task { await self.run() }
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
        let (loop, tasks) = state.withLockedValue { state in
            defer { state.loop = nil }
            return (state.loop, Array(state.tasks.values))
        }
        loop?.cancel()
        poke()
        await loop?.value
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// How many times the workers have begun waiting for the poll (or a poke).
    var pollsBegun: Int { state.withLockedValue(\.polls) }

    /// How many jobs are running on this server now.
    var runningCount: Int { state.withLockedValue(\.running) }

    private func run() async {
        while !Task.isCancelled {
            let free = state.withLockedValue { $0.running < concurrency }
            if free, let job = await claim() {
                launch(job)
                continue
            }
            await atEachPoll()
            await sleep()
        }
    }

    private func claim() async -> JobRecord? {
        let now = now()
        do {
            return try await repository.claim(now: now, leaseUntil: now.addingTimeInterval(Self.lease), attemptsBelow: Self.maxAttempts)
        } catch {
            logger.warning("jobs: could not take a job: \(error)")
            return nil
        }
    }

    /// Until a poke or the poll's time, whichever comes first.
    private func sleep() async {
        let clock = clock
        let timer = Task {
            try? await clock.sleep(for: Self.poll)
            if !Task.isCancelled { self.poke() }
        }
        defer { timer.cancel() }
        state.withLockedValue { $0.polls += 1 }
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

    private func launch(_ job: JobRecord) {
        let id = job.id
        let (repository, now, logger) = (repository, now, logger)
        let context = JobContext(id: id, ownerID: job.ownerID) { progress, message in
            try? await repository.report(id, progress: progress, message: message, leaseUntil: now().addingTimeInterval(Self.lease))
        }
        let runner = runners.withLockedValue { $0[job.kind] }
        let (kind, payload) = (job.kind, job.payload)
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
                guard let runner else {
                    try? await repository.finish(id, status: .failed, message: JobError.unknownKind(kind).description, result: nil)
                    return
                }
                do {
                    let output = try await runner.run(payload: payload, context)
                    try? await repository.finish(id, status: .done, message: nil, result: output.json)
                } catch is CancellationError {
                    // The server is stopping: the lease runs out and another worker takes the job again.
                } catch {
                    let message = ErrorTable.message(for: error, fallback: "The job failed")
                    logger.info("jobs: \(kind) \(id) failed: \(message)")
                    try? await repository.finish(id, status: .failed, message: message, result: nil)
                }
            }
        }
    }
}

/// Starts the job workers with the server and lets running jobs stop before the database closes.
struct JobWorkersLifecycle: LifecycleHandler {
    let workers: JobWorkers

    func didBootAsync(_ application: Application) async throws {
        workers.start()
    }

    func shutdownAsync(_ application: Application) async {
        await workers.stop()
    }
}
