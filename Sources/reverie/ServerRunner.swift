import Foundation
import Logging
import ReverieAPI
import ReverieServer
import Vapor

/// Builds a configured application, hands it over, and shuts it down whatever happens.
enum ServerRunner {
    /// - Parameter logLevel: used unless `LOG_LEVEL` is set; commands other than `serve` keep quiet.
    static func withApplication(_ config: ServerConfig, logLevel: Logger.Level = .info,
                                _ body: (Application) async throws -> Void) async throws {
        let variables = ProcessInfo.processInfo.environment
        var arguments = ["reverie"]
        if variables["LOG_LEVEL"] == nil { arguments += ["--log", logLevel.rawValue] }
        var environment = Environment(name: variables["REVERIE_ENV"] ?? "production", arguments: arguments)
        try LoggingSystem.bootstrap(from: &environment)
        let app = try await Application.make(environment)
        do {
            try await configure(app, config)
            try await body(app)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
