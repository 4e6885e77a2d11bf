import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
import Speech
import Vapor

/// What the server has made ready, measured by doing the work (speaking a word, loading the
/// rhymes index, speaking the narration) and kept as state, so that `GET /api/health` reads it
/// without doing any of that work itself. Real requests update it too: a render that fails
/// because its engine died marks the engine failed until the next one succeeds.
final class Readiness: Sendable {
    typealias State = HealthResponse.State
    typealias Part = HealthResponse.Part

    struct Snapshot: Sendable, Equatable {
        var engines: [HealthResponse.Engine]
        var voices: [VoiceInfo]
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

    /// Every part starts `warming`: nothing has been measured yet.
    init(engineNames: [String]) {
        box = NIOLockedValueBox(Snapshot(engines: engineNames.map { .init(name: $0, state: .warming) }, voices: [],
                                         rhymes: .init(state: .warming), narration: .init(state: .warming)))
    }

    var snapshot: Snapshot { box.withLockedValue { $0 } }

    func setEngine(_ name: String, _ state: State, detail: String? = nil) {
        box.withLockedValue { snapshot in
            guard let index = snapshot.engines.firstIndex(where: { $0.name == name }) else { return }
            snapshot.engines[index] = .init(name: name, state: state, detail: detail)
        }
    }

    func setVoices(_ voices: [VoiceInfo]) { box.withLockedValue { $0.voices = voices } }
    func setRhymes(_ part: Part) { box.withLockedValue { $0.rhymes = part } }
    func setNarration(_ part: Part) { box.withLockedValue { $0.narration = part } }
}

extension Application {
    private struct ReadinessKey: StorageKey {
        typealias Value = Readiness
    }

    private struct WarmupKey: StorageKey {
        typealias Value = Task<Void, Never>
    }

    var readiness: Readiness {
        get {
            guard let readiness = storage[ReadinessKey.self] else { fatalError("configure(_:_:) has not run") }
            return readiness
        }
        set { storage[ReadinessKey.self] = newValue }
    }

    /// Makes the slow parts ready before the first person needs them: loads (or builds) the
    /// rhymes index, starts each speech engine by speaking a word, and speaks the meditation
    /// narration, in the background. Requests that arrive meanwhile wait for the same work
    /// rather than starting it again. Afterwards the engines are tried again every
    /// `refreshInterval`, so health follows a worker that dies. Stops at shutdown.
    public func startWarmingUp(refreshInterval: Duration = .seconds(60)) {
        let app = self
        let task = Task.detached(priority: .utility) {
            _ = try? await RhymesController.engine(app)
            await app.probeSpeechEngines()
            await app.meditationAudio.makeAll(readiness: app.readiness)
            while !Task.isCancelled {
                try? await Task.sleep(for: refreshInterval)
                guard !Task.isCancelled else { return }
                await app.probeSpeechEngines()
            }
        }
        storage[WarmupKey.self] = task
    }

    /// Speaks one word with each engine and records how that went, with the engines' voices.
    func probeSpeechEngines() async {
        for engine in speech.engines.engines {
            do {
                _ = try await engine.synthesize("Ready.", voice: nil, rate: 1)
                readiness.setEngine(engine.name, .ready)
            } catch {
                readiness.setEngine(engine.name, .failed, detail: (error as? SpeechError)?.description ?? "\(error)")
            }
        }
        readiness.setVoices(await speech.engines.voices().map(VoiceInfo.init))
    }

    fileprivate func stopWarmingUp() {
        storage[WarmupKey.self]?.cancel()
    }
}

/// Cancels the warm-up and refresh task when the application shuts down (added by `configure`).
struct WarmupLifecycle: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        application.stopWarmingUp()
    }
}
