import Speech
import Vapor

/// Health: whether the database answers and which engines are warm.
struct HealthFeature: Feature {
    let routes: [any RouteCollection]

    init(databaseKind: String, readiness: Readiness, engines: SpeechEngines) {
        routes = [HealthController(databaseKind: databaseKind, readiness: readiness, engines: engines)]
    }
}
