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
            let port = app.http.server.shared.localAddress?.port ?? config.port
            var https: HTTPSService?
            if config.tls.enabled {
                do {
                    https = try await HTTPSService.start(app, settings: config.tls, host: config.host, dataDirectory: config.dataDirectory)
                } catch {
                    throw CommandFailure("HTTPS could not start on port \(config.tls.port): \(error). Choose another with --tls-port, or REVERIE_TLS=off to serve plain HTTP.")
                }
            }
            app.httpsRegistry.started(https, httpPort: port)
            // Announced before the warm-up starts the Piper workers: a program started while
            // qrencode runs could inherit its descriptors and hold up Foundation's wait for it.
            await announce(config, port: port, https: https)
            app.startWarmingUp()
            try await app.running?.onStop.get()
        }
    }
}

/// Prints where the server listens (the real port when 0 was asked for); scripts read the first
/// line. With HTTPS, the addresses a phone opens and the welcome page's, with its QR code.
private func announce(_ config: ServerConfig, port: Int, https: HTTPSService?) async {
    let host = config.host.contains(":") ? "[\(config.host)]" : config.host
    var text = "Reverie \(ReverieVersion.current) is serving http://\(host):\(port)  (database: \(config.database.kind), data: \(config.dataDirectory))\n"
    if let https { text += await https.announcement(host: config.host, httpPort: port, dataDirectory: config.dataDirectory) }
    FileHandle.standardOutput.write(Data(text.utf8))
}
