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
            // `startup` runs Vapor's serve command, which listens and handles SIGINT/SIGTERM.
            try await app.startup()
            app.startWarmingUp()
            announce(app, config)
            try await app.running?.onStop.get()
        }
    }
}

/// Prints where the server listens (the real port when 0 was asked for); scripts read this line.
private func announce(_ app: Application, _ config: ServerConfig) {
    let port = app.http.server.shared.localAddress?.port ?? config.port
    let host = config.host.contains(":") ? "[\(config.host)]" : config.host
    let line = "Reverie \(ReverieVersion.current) is serving http://\(host):\(port)  (database: \(config.database.kind), data: \(config.dataDirectory))\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}
