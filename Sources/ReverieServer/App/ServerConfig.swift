import Foundation
import Installation

/// Everything the server needs to start, resolved from command-line flags, environment variables
/// and defaults, in that order of precedence.
///
/// | setting | flag | environment | default |
/// |---|---|---|---|
/// | host | `--host` | `REVERIE_HOST` | `127.0.0.1` |
/// | port | `--port` | `REVERIE_PORT` | `8080` |
/// | data directory | `--data-dir` | `REVERIE_DATA_DIR` | `data` |
/// | database | `--database-url` | `DATABASE_URL` | SQLite at `<data>/reverie.sqlite` |
/// | web app files | `--web-dir` | `REVERIE_WEB_DIR` | `Web` next to the working directory or the binary |
/// | largest request body | — | `REVERIE_MAX_BODY_BYTES` | 1 MiB |
/// | largest audio upload | — | `REVERIE_MAX_UPLOAD_BYTES` | 4 GiB |
/// | files kept in memory | — | `REVERIE_FILE_CACHE_BYTES` | 256 MiB |
/// | development mode (the paywall bypass) | — | `REVERIE_ENV` | `production` |
/// | HTTPS beside plain HTTP | — | `REVERIE_TLS` (`auto`, `on`, `off`) | `auto`: on when the host is not loopback |
/// | HTTPS port | `--tls-port` | `REVERIE_TLS_PORT` | `8443` |
/// | the owner's certificate and key (PEM) | `--tls-cert`, `--tls-key` | `REVERIE_TLS_CERT`, `REVERIE_TLS_KEY` | the local authority's |
/// | more names for the local authority's certificate | — | `REVERIE_TLS_NAMES` (comma-separated) | none |
/// | the production front's addresses | — | `REVERIE_FRONT` (comma-separated) | none |
/// | the front's media secret (signed addresses) | — | `REVERIE_FRONT_MEDIA_KEY_FILE` | none (X-Accel-Redirect) |
public struct ServerConfig: Sendable, Equatable {
    /// Where rows live.
    public enum Database: Sendable, Equatable {
        /// An SQLite file (WAL journal); `nil` path means in memory (tests only).
        case sqlite(path: String?)
        /// A PostgreSQL server, by URL (`postgres://user:pass@host:port/db`).
        case postgres(url: String, searchPath: [String]? = nil)

        /// `sqlite` or `postgresql`, as `/api/health` reports it.
        public var kind: String {
            switch self {
            case .sqlite: "sqlite"
            case .postgres: "postgresql"
            }
        }
    }

    /// Whether the session cookie carries the `Secure` attribute.
    public enum SecureCookies: String, Sendable, Equatable {
        /// Secure when the request came over HTTPS (or through a proxy saying so) or to a loopback host,
        /// which browsers treat as a secure context; plain HTTP on a LAN address would otherwise lose
        /// the cookie.
        case auto
        case always
        case never
    }

    /// Values given on the command line; `nil` means "not given".
    public struct Overrides: Sendable, Equatable {
        public var host: String?
        public var port: Int?
        public var dataDirectory: String?
        public var databaseURL: String?
        public var webDirectory: String?
        public var tlsPort: Int?
        public var tlsCertificate: String?
        public var tlsKey: String?

        public init(host: String? = nil, port: Int? = nil, dataDirectory: String? = nil,
                    databaseURL: String? = nil, webDirectory: String? = nil,
                    tlsPort: Int? = nil, tlsCertificate: String? = nil, tlsKey: String? = nil) {
            self.host = host
            self.port = port
            self.dataDirectory = dataDirectory
            self.databaseURL = databaseURL
            self.webDirectory = webDirectory
            self.tlsPort = tlsPort
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
        }
    }

    public var host: String
    /// TCP port; 0 asks the system for a free one.
    public var port: Int
    /// Directory for the SQLite file, media and renders. Created on start.
    public var dataDirectory: String
    public var database: Database
    /// Directory holding `index.html`, the scripts and `openapi.yaml`.
    public var webDirectory: String
    /// Requests with a larger body are refused with 413.
    public var maxBodyBytes: Int
    /// bcrypt work factor (4…31). 12 in production; tests lower it.
    public var bcryptCost: Int
    public var secureCookies: SecureCookies
    /// How long a web session lasts without use, in seconds.
    public var sessionLifetime: TimeInterval
    /// Most characters one speech render may have.
    public var speechMaxCharacters: Int
    /// Most speech renders one user may have running at once (more answer 429).
    public var speechMaxConcurrentRenders: Int
    /// A connection that neither sends nor receives anything for this many seconds is closed
    /// (`REVERIE_IDLE_TIMEOUT`), so idle or stalled clients cannot use up the server's open files.
    public var idleTimeoutSeconds: Int = 60
    /// Largest audio file anyone may upload (`REVERIE_MAX_UPLOAD_BYTES`, 4 GiB); more is a 413.
    public var maxUploadBytes: Int = 4 << 30
    /// The most bytes of files (web app, audio, captions) kept in memory to answer from
    /// (`REVERIE_FILE_CACHE_BYTES`, 256 MiB); files up to half of it are kept, larger ones stream.
    public var fileCacheBytes: Int = 256 << 20
    /// The guarded HTTP client may fetch from private, loopback and link-local addresses
    /// (`REVERIE_ALLOW_PRIVATE_FETCH=1`): for a server whose outside services are on the LAN, and tests.
    public var allowPrivateFetches = false
    /// How many times its usual waits the server gives work in progress before it answers with an
    /// error (`REVERIE_PATIENCE`, 1): an outside host (10 s to connect, 30 s for an answer), a
    /// render's first phrase and a sleep item's first sound (30 s each). For a slow machine, and
    /// for tests, whose hosts and voices share a busy one.
    public var patience: Int = 1
    /// How long one connection to a night stream plays at most (`REVERIE_NIGHT_STREAM_SECONDS`,
    /// 57600: 16 hours, a long night and the morning after); then the stream ends as a whole MP3.
    /// Shorter for a robustness run, whose client reads a whole answer before the next request.
    public var nightStreamSeconds: Int = 16 * 3600
    /// Where LibriVox's API is (`REVERIE_LIBRIVOX_URL`): `<base>/api/feed/audiobooks`.
    public var librivoxBaseURL = URL(string: "https://librivox.org")!
    /// Where the iTunes Search API is (`REVERIE_ITUNES_URL`): `<base>/search`.
    public var itunesBaseURL = URL(string: "https://itunes.apple.com")!
    /// Where Podcast Index's API is (`REVERIE_PODCASTINDEX_URL`): `<base>/api/1.0/…`; used when the
    /// owner has given a key and secret.
    public var podcastIndexBaseURL = URL(string: "https://api.podcastindex.org")!
    /// Where radio-browser's server list is (`REVERIE_RADIO_BROWSER_URL`): `<base>/json/servers`.
    public var radioBrowserBaseURL = URL(string: "https://all.api.radio-browser.info")!
    /// How often a feed is refreshed when all is well (`REVERIE_FEED_REFRESH_MINUTES`, 60).
    public var feedRefreshMinutes = 60
    /// `REVERIE_ENV=development`: the server offers "Bypass IAP (Dev)", which unlocks Plus for the
    /// account that turns it on. Any other run (`production`, the default) refuses it.
    public var developmentMode = false
    /// HTTPS at home: a listener of its own beside the plain one, on when the server listens beyond
    /// loopback (where plain HTTP is not a secure context for a phone).
    public var tls = TLSSettings()
    /// The production front's addresses (`REVERIE_FRONT`, comma-separated): their requests'
    /// `X-Forwarded-For` is believed and their files are sent by the front (`FrontSettings`).
    public var front = FrontSettings()

    /// Files people gave the server, under the data directory: `<data>/media/<name>`.
    public func mediaDirectory(_ name: String) -> URL {
        URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("media").appendingPathComponent(name, isDirectory: true)
    }

    /// A cache under the data directory: `<data>/cache/<name>` (speech, meditation, rhymes).
    public func cacheDirectory(_ name: String) -> URL {
        Self.cacheDirectory(name, dataDirectory: dataDirectory)
    }

    public static func cacheDirectory(_ name: String, dataDirectory: String) -> URL {
        URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("cache").appendingPathComponent(name, isDirectory: true)
    }

    /// The data directory from a flag, else `REVERIE_DATA_DIR`, else `data`.
    public static func dataDirectory(flag: String?, environment: [String: String]) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let variable = environment["REVERIE_DATA_DIR"]?.trimmingCharacters(in: .whitespaces), !variable.isEmpty { return variable }
        return "data"
    }

    public init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "data",
                database: Database? = nil, webDirectory: String = "Web", maxBodyBytes: Int = 1 << 20,
                bcryptCost: Int = 12, secureCookies: SecureCookies = .auto,
                sessionLifetime: TimeInterval = 30 * 24 * 3600,
                speechMaxCharacters: Int = 100_000, speechMaxConcurrentRenders: Int = 2) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.database = database ?? .sqlite(path: (dataDirectory as NSString).appendingPathComponent("reverie.sqlite"))
        self.webDirectory = webDirectory
        self.maxBodyBytes = maxBodyBytes
        self.bcryptCost = bcryptCost
        self.secureCookies = secureCookies
        self.sessionLifetime = sessionLifetime
        self.speechMaxCharacters = speechMaxCharacters
        self.speechMaxConcurrentRenders = speechMaxConcurrentRenders
    }
}

// MARK: - Resolving

extension ServerConfig {
    /// Combines flags, environment and defaults, and checks the result.
    ///
    /// - Parameters:
    ///   - overrides: values from the command line; they win over the environment.
    ///   - environment: usually `ProcessInfo.processInfo.environment`.
    ///   - locateWeb: finds the default web directory when neither flag nor variable names one.
    /// - Throws: `ConfigError` naming the setting and what is wrong with it.
    public static func resolve(
        overrides: Overrides = Overrides(),
        environment: [String: String],
        locateWeb: () -> String = ServerConfig.defaultWebDirectory
    ) throws -> ServerConfig {
        func value(_ flag: String?, _ variable: String) -> String? {
            if let flag, !flag.isEmpty { return flag }
            if let env = environment[variable]?.trimmingCharacters(in: .whitespaces), !env.isEmpty { return env }
            return nil
        }

        let host = value(overrides.host, "REVERIE_HOST") ?? "127.0.0.1"

        var port = 8080
        if let given = overrides.port {
            port = given
        } else if let text = value(nil, "REVERIE_PORT") {
            guard let parsed = Int(text) else { throw ConfigError.invalid(setting: "REVERIE_PORT", reason: "'\(text)' is not a number") }
            port = parsed
        }
        guard (0...65535).contains(port) else {
            throw ConfigError.invalid(setting: "port", reason: "\(port) is outside 0…65535")
        }

        let dataDirectory = dataDirectory(flag: overrides.dataDirectory, environment: environment)
        let database: Database
        if let url = value(overrides.databaseURL, "DATABASE_URL") {
            database = try parseDatabaseURL(url)
        } else {
            database = .sqlite(path: (dataDirectory as NSString).appendingPathComponent("reverie.sqlite"))
        }

        var maxBody = 1 << 20
        if let text = value(nil, "REVERIE_MAX_BODY_BYTES") {
            guard let parsed = Int(text), parsed > 0 else {
                throw ConfigError.invalid(setting: "REVERIE_MAX_BODY_BYTES", reason: "'\(text)' is not a positive number of bytes")
            }
            maxBody = parsed
        }

        var secure = SecureCookies.auto
        if let text = value(nil, "REVERIE_SECURE_COOKIES") {
            guard let parsed = SecureCookies(rawValue: text.lowercased()) else {
                throw ConfigError.invalid(setting: "REVERIE_SECURE_COOKIES", reason: "'\(text)' is not one of auto, always, never")
            }
            secure = parsed
        }

        var config = ServerConfig(
            host: host, port: port, dataDirectory: dataDirectory, database: database,
            webDirectory: value(overrides.webDirectory, "REVERIE_WEB_DIR") ?? locateWeb(),
            maxBodyBytes: maxBody, secureCookies: secure
        )
        if let text = value(nil, "REVERIE_MAX_UPLOAD_BYTES") {
            guard let parsed = Int(text), parsed > 0 else {
                throw ConfigError.invalid(setting: "REVERIE_MAX_UPLOAD_BYTES", reason: "'\(text)' is not a positive number of bytes")
            }
            config.maxUploadBytes = parsed
        }
        if let text = value(nil, "REVERIE_FILE_CACHE_BYTES") {
            guard let parsed = Int(text), parsed >= 0 else {
                throw ConfigError.invalid(setting: "REVERIE_FILE_CACHE_BYTES", reason: "'\(text)' is not a number of bytes (0 keeps none)")
            }
            config.fileCacheBytes = parsed
        }
        if let text = value(nil, "REVERIE_PATIENCE") {
            guard let parsed = Int(text), (1...100).contains(parsed) else {
                throw ConfigError.invalid(setting: "REVERIE_PATIENCE", reason: "'\(text)' is not a whole number from 1 to 100")
            }
            config.patience = parsed
        }
        if let text = value(nil, "REVERIE_NIGHT_STREAM_SECONDS") {
            guard let parsed = Int(text), (1...(7 * 24 * 3600)).contains(parsed) else {
                throw ConfigError.invalid(setting: "REVERIE_NIGHT_STREAM_SECONDS", reason: "'\(text)' is not a number of seconds from 1 to 604800")
            }
            config.nightStreamSeconds = parsed
        }
        if let text = value(nil, "REVERIE_ALLOW_PRIVATE_FETCH") {
            guard ["0", "1", "true", "false"].contains(text.lowercased()) else {
                throw ConfigError.invalid(setting: "REVERIE_ALLOW_PRIVATE_FETCH", reason: "'\(text)' is not 1 or 0")
            }
            config.allowPrivateFetches = ["1", "true"].contains(text.lowercased())
        }
        if let text = value(nil, "REVERIE_LIBRIVOX_URL") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ConfigError.invalid(setting: "REVERIE_LIBRIVOX_URL", reason: "'\(text)' is not an http(s) address")
            }
            config.librivoxBaseURL = url
        }
        for (setting, path) in [("REVERIE_ITUNES_URL", \ServerConfig.itunesBaseURL), ("REVERIE_PODCASTINDEX_URL", \.podcastIndexBaseURL),
                                ("REVERIE_RADIO_BROWSER_URL", \.radioBrowserBaseURL)] {
            guard let text = value(nil, setting) else { continue }
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ConfigError.invalid(setting: setting, reason: "'\(text)' is not an http(s) address")
            }
            config[keyPath: path] = url
        }
        if let text = value(nil, "REVERIE_FEED_REFRESH_MINUTES") {
            guard let parsed = Int(text), (5...10_080).contains(parsed) else {
                throw ConfigError.invalid(setting: "REVERIE_FEED_REFRESH_MINUTES", reason: "'\(text)' is not a number of minutes from 5 to 10080")
            }
            config.feedRefreshMinutes = parsed
        }
        if let text = value(nil, "REVERIE_ENV") {
            guard ["development", "production"].contains(text.lowercased()) else {
                throw ConfigError.invalid(setting: "REVERIE_ENV", reason: "'\(text)' is not development or production")
            }
            config.developmentMode = text.lowercased() == "development"
        }
        if let text = value(nil, "REVERIE_IDLE_TIMEOUT") {
            guard let parsed = Int(text), (1...3600).contains(parsed) else {
                throw ConfigError.invalid(setting: "REVERIE_IDLE_TIMEOUT", reason: "'\(text)' is not a number of seconds from 1 to 3600")
            }
            config.idleTimeoutSeconds = parsed
        }
        config.tls = try resolveTLS(host: host, overrides: overrides, value: value)
        if let text = value(nil, "REVERIE_FRONT") {
            let given = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            var key: String?
            if let file = value(nil, "REVERIE_FRONT_MEDIA_KEY_FILE") {
                let text = (try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                guard text.count >= 16, !text.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "$" || $0 == ";" }) else {
                    throw ConfigError.invalid(setting: "REVERIE_FRONT_MEDIA_KEY_FILE",
                                              reason: "'\(file)' must hold the front's media secret: 16 characters or more, no spaces, quotes, $ or ;")
                }
                key = text
            }
            let front = FrontSettings(addresses: given, mediaKey: key)
            guard front.addresses.count == given.count else {
                throw ConfigError.invalid(setting: "REVERIE_FRONT", reason: "'\(text)' is not a list of IP addresses")
            }
            config.front = front
        }
        return config
    }

    private static func resolveTLS(host: String, overrides: Overrides, value: (String?, String) -> String?) throws -> TLSSettings {
        var tls = TLSSettings()
        switch value(nil, "REVERIE_TLS")?.lowercased() ?? "auto" {
        case "auto": tls.enabled = !TLSSettings.isLoopback(host)
        case "on", "1", "true": tls.enabled = true
        case "off", "0", "false": tls.enabled = false
        case let other: throw ConfigError.invalid(setting: "REVERIE_TLS", reason: "'\(other)' is not auto, on or off")
        }
        if let given = overrides.tlsPort {
            tls.port = given
        } else if let text = value(nil, "REVERIE_TLS_PORT") {
            guard let parsed = Int(text) else { throw ConfigError.invalid(setting: "REVERIE_TLS_PORT", reason: "'\(text)' is not a number") }
            tls.port = parsed
        }
        guard (0...65535).contains(tls.port) else { throw ConfigError.invalid(setting: "TLS port", reason: "\(tls.port) is outside 0…65535") }
        let certificate = value(overrides.tlsCertificate, "REVERIE_TLS_CERT"), key = value(overrides.tlsKey, "REVERIE_TLS_KEY")
        switch (certificate, key) {
        case let (certificate?, key?): tls.source = .files(certificate: certificate, key: key)
        case (nil, nil): tls.source = .localAuthority
        default: throw ConfigError.invalid(setting: "--tls-cert and --tls-key", reason: "give both the certificate and its key, or neither")
        }
        tls.extraNames = (value(nil, "REVERIE_TLS_NAMES") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return tls
    }

    /// Reads a `DATABASE_URL`: `postgres://…` or `postgresql://…` for PostgreSQL, `sqlite:PATH`
    /// (or `sqlite://PATH`) for an SQLite file.
    public static func parseDatabaseURL(_ text: String) throws -> Database {
        let lower = text.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
                throw ConfigError.invalid(setting: "DATABASE_URL", reason: "cannot read a host from it")
            }
            _ = host
            return .postgres(url: text)
        }
        if lower.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else { throw ConfigError.invalid(setting: "DATABASE_URL", reason: "sqlite: needs a file path") }
            return .sqlite(path: path)
        }
        throw ConfigError.invalid(setting: "DATABASE_URL", reason: "use postgres://user:password@host:port/database or sqlite:PATH")
    }

    /// `Web` in the working directory when it holds `index.html`, else `Web` beside the repository
    /// the binary was built in (`.build/<config>/reverie` → `../../Web`), else `Web`.
    public static func defaultWebDirectory() -> String {
        RepositoryRoots().first(containing: "Web/index.html").map { ($0 as NSString).appendingPathComponent("Web") } ?? "Web"
    }
}

/// A setting that cannot be used, with the setting's name and why.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(setting: String, reason: String)

    public var description: String {
        switch self {
        case let .invalid(setting, reason): "Invalid \(setting): \(reason)."
        }
    }
}
