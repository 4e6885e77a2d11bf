import ReverieAPI
import Vapor

/// `GET /api/health`.
struct HealthController: RouteCollection {
    let databaseKind: String

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "health", use: health)
    }

    func health(req: Request) async throws -> HealthResponse {
        let engines = req.application.speech.engines
        return HealthResponse(version: ReverieVersion.current, database: .init(kind: databaseKind),
                              speech: .init(engines: engines.names, voices: await engines.voices().map(VoiceInfo.init)))
    }
}
