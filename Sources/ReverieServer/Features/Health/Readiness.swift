import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
import Speech
import Vapor

/// What the server has made ready, measured by doing the work (speaking a word, loading the
/// rhymes index, speaking the narration) and kept as state, so that `GET /api/health` reads it
/// without doing any of that work itself. The warm-up task that measures it lives here too.
final class Readiness: Sendable {
    typealias State = HealthResponse.State
    typealias Part = HealthResponse.Part

    struct Snapshot: Sendable, Equatable {
        /// Installed engines first (warming until measured), then those this machine lacks (missing).
        var engines: [HealthResponse.Engine]
        var rhymes: Part
        var narration: Part

        /// `ok`, `warming` or `degraded`, from the parts.
        var status: String {
            var states: [State] = engines.map { $0.state }
            states.append(rhymes.state)
            states.append(narration.state)
            if states.contains(where: { $0 == .failed || $0 == .missing }) || engines.isEmpty { return "degraded" }
            if states.contains(.warming) { return "warming" }
            return "ok"
        }
    }

    private let box: NIOLockedValueBox<Snapshot>
    private let warmup = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Every installed part starts `warming`: nothing has been measured yet.
    init(_ speech: SpeechEngines) {
        let engines = speech.names.map { HealthResponse.Engine(name: $0, state: .warming) }
            + speech.missing.map { HealthResponse.Engine(name: $0.name, state: .missing, detail: $0.reason) }
        box = NIOLockedValueBox(Snapshot(engines: engines, rhymes: .init(state: .warming), narration: .init(state: .warming)))
    }

    var snapshot: Snapshot { box.withLockedValue { $0 } }

    func setEngine(_ name: String, _ state: State, detail: String? = nil) {
        box.withLockedValue { snapshot in
            guard let index = snapshot.engines.firstIndex(where: { $0.name == name }) else { return }
            snapshot.engines[index] = .init(name: name, state: state, detail: detail)
        }
    }

    func setRhymes(_ part: Part) { box.withLockedValue { $0.rhymes = part } }
    func setNarration(_ part: Part) { box.withLockedValue { $0.narration = part } }

    /// Keeps the warm-up task (cancelling one before it).
    func run(_ task: Task<Void, Never>) {
        warmup.withLockedValue { old in
            old?.cancel()
            old = task
        }
    }

    func stop() { warmup.withLockedValue { $0?.cancel() } }
}

extension Application {
    /// Makes the slow parts ready before the first person needs them: starts the speech workers
    /// while it loads (or builds) the rhymes index (and the offline rhyme pack), tries each speech engine by speaking a word, and speaks the meditation
    /// narration, in the background. Requests that arrive meanwhile wait for the same work
    /// rather than starting it again. Afterwards the engines are tried again every
    /// `refreshInterval`, so health follows a worker that dies. Stops at shutdown.
    public func startWarmingUp(refreshInterval: Duration = .seconds(60)) {
        let app = self
        readiness.run(Task.detached(priority: .utility) {
            // The speech workers load their voices while the rhymes index loads.
            async let workers: Void = app.speech.engines.warm()
            do {
                _ = try await app.services.rhymes.engine()
                app.readiness.setRhymes(.init(state: .ready))
                // The pack a phone keeps for rhyming offline: made now, so its first download is quick.
                _ = try? await app.services.rhymes.offlinePack()
            } catch {
                app.readiness.setRhymes(.init(state: .failed, detail: (error as? APIError)?.message ?? "\(error)"))
            }
            await workers
            await app.probeSpeechEngines()
            await app.meditationAudio.makeAll(readiness: app.readiness)
            await app.meditationAudio.makeFirstAhead(seeds: MeditationController.seeds)
            await app.sleepAudio.makeFeatured()
            while !Task.isCancelled {
                try? await Task.sleep(for: refreshInterval)
                guard !Task.isCancelled else { return }
                await app.probeSpeechEngines()
            }
        })
    }

    /// Speaks one word with each installed engine and records how that went.
    func probeSpeechEngines() async {
        for engine in speech.engines.engines {
            do {
                _ = try await engine.synthesize("Ready.", voice: nil, rate: 1)
                readiness.setEngine(engine.name, .ready)
            } catch {
                readiness.setEngine(engine.name, .failed, detail: (error as? SpeechError)?.description ?? "\(error)")
            }
        }
    }
}

/// Cancels the warm-up and refresh task when the application shuts down (added by `configure`).
struct WarmupLifecycle: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        application.readiness.stop()
    }
}
