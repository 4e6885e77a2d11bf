import Speech
import Foundation
import ReverieAPI
import SQLKit
import Vapor

/// `GET /api/health`: a query on the database (503 with what failed when it cannot answer),
/// and the state of the speech engines, the rhymes index and the narration as last measured in
/// the background; so it stays cheap.
struct HealthController: RouteCollection {
    let databaseKind: String
    let readiness: Readiness
    let engines: SpeechEngines

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "health", use: health)
    }

    func health(req: Request) async throws -> HealthResponse {
        let started = ContinuousClock.now
        do {
            guard let sql = req.db as? any SQLDatabase else { throw APIError(.internalServerError, code: "no_sql", "not an SQL database") }
            // A real read of a table every Reverie database has, not just a round trip.
            _ = try await sql.raw("SELECT id FROM _fluent_migrations LIMIT 1").first()
        } catch {
            req.logger.error("health: the database did not answer: \(String(reflecting: error))")
            throw APIError(.serviceUnavailable, code: "database_unavailable",
                           "The \(databaseKind) database did not answer a query (\(String(describing: error))); check that it is running and reachable.")
        }
        let hundredths: Double = (ContinuousClock.now - started) / .microseconds(10)
        let milliseconds: Double = hundredths.rounded() / 100
        let readiness = self.readiness.snapshot
        let engines = self.engines
        return HealthResponse(status: readiness.status, version: ReverieVersion.current,
                              database: .init(kind: databaseKind, latencyMs: milliseconds),
                              speech: .init(engines: engines.names, states: readiness.engines, voices: await engines.voices().map(VoiceInfo.init)),
                              rhymes: readiness.rhymes, narration: readiness.narration)
    }
}
