import ArgumentParser
import Foundation
import ReverieAPI
import ReverieServer
import Vapor

/// `reverie serve`: runs the server until interrupted.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the web app and the API.")

    @OptionGroup var storage: StorageOptions
    @OptionGroup var serve: ServeOptions

    func run() async throws {
        let config = try ServerConfig.resolve(
            overrides: .init(storage: storage, serve: serve),
            environment: ProcessInfo.processInfo.environment)
        try await ServerRunner.withApplication(config) { app in
            app.lifecycle.use(AnnounceAddress(config: config))
            try await app.execute()
        }
    }
}

/// Prints where the server listens once it does (the real port when 0 was asked for).
private struct AnnounceAddress: LifecycleHandler {
    let config: ServerConfig

    func didBootAsync(_ application: Application) async throws {
        let port = application.http.server.shared.localAddress?.port ?? config.port
        let host = config.host.contains(":") ? "[\(config.host)]" : config.host
        FileHandle.standardOutput.write(Data("Reverie \(ReverieVersion.current) is serving http://\(host):\(port)  (database: \(config.database.kind), data: \(config.dataDirectory))\n".utf8))
    }
}
