import ArgumentParser
import ReverieServer

/// Where Reverie keeps its data: shared by every command that opens the database.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Directory for the database file, media and renders (env REVERIE_DATA_DIR; default: data).")
    var dataDirectory: String?

    @Option(name: .customLong("database-url"), help: "postgres://user:password@host:port/db or sqlite:PATH (env DATABASE_URL; default: SQLite in the data directory).")
    var databaseURL: String?
}

/// Options of `reverie serve`.
struct ServeOptions: ParsableArguments {
    @Option(help: "Address to listen on (env REVERIE_HOST; default: 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on; 0 picks a free one (env REVERIE_PORT; default: 8080).")
    var port: Int?

    @Option(name: .customLong("web-dir"), help: "Directory with the web app (env REVERIE_WEB_DIR; default: ./Web).")
    var webDirectory: String?

    @Option(name: .customLong("tls-port"), help: "HTTPS port, served when the host is not loopback (env REVERIE_TLS_PORT; default: 8443; REVERIE_TLS=on|off|auto).")
    var tlsPort: Int?

    @Option(name: .customLong("tls-cert"), help: "Your own certificate chain (PEM), e.g. from Let's Encrypt or tailscale cert, read again when it changes (env REVERIE_TLS_CERT; default: Reverie's local authority).")
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The private key (PEM) of --tls-cert (env REVERIE_TLS_KEY).")
    var tlsKey: String?

    func validate() throws {
        if let port, !(0...65535).contains(port) {
            throw ValidationError("--port must be between 0 and 65535.")
        }
        if let tlsPort, !(0...65535).contains(tlsPort) {
            throw ValidationError("--tls-port must be between 0 and 65535.")
        }
    }
}

extension ServerConfig.Overrides {
    /// The command-line half of a `ServerConfig`.
    init(storage: StorageOptions, serve: ServeOptions? = nil) {
        self.init(host: serve?.host, port: serve?.port, dataDirectory: storage.dataDirectory,
                  databaseURL: storage.databaseURL, webDirectory: serve?.webDirectory,
                  tlsPort: serve?.tlsPort, tlsCertificate: serve?.tlsCertificate, tlsKey: serve?.tlsKey)
    }
}
