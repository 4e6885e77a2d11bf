import ReverieAPI
import Vapor

/// `GET /api/health`.
struct HealthController: RouteCollection {
    let databaseKind: String

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "health", use: health)
    }

    func health(req: Request) async throws -> HealthResponse {
        // Speech engines arrive with the speech module; until then none is available.
        HealthResponse(version: ReverieVersion.current, database: .init(kind: databaseKind), speech: .init(engines: []))
    }
}
