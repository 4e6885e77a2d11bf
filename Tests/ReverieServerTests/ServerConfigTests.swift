import ReverieServer
import Testing

@Suite("Server configuration")
struct ServerConfigTests {
    let web = { "/srv/web" }

    @Test("defaults: 127.0.0.1:8080, SQLite in data/")
    func defaults() throws {
        let config = try ServerConfig.resolve(environment: [:], locateWeb: web)
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.dataDirectory == "data")
        #expect(config.database == .sqlite(path: "data/reverie.sqlite"))
        #expect(config.webDirectory == "/srv/web")
        #expect(config.maxBodyBytes == 1 << 20)
        #expect(config.secureCookies == .auto)
        #expect(config.patience == 1)
        #expect(config.nightStreamSeconds == 16 * 3600)
    }

    @Test("environment variables set every setting")
    func environment() throws {
        let config = try ServerConfig.resolve(environment: [
            "REVERIE_HOST": "0.0.0.0", "REVERIE_PORT": "9000", "REVERIE_DATA_DIR": "/var/lib/reverie",
            "DATABASE_URL": "postgres://reverie:pw@db.local:5432/reverie", "REVERIE_WEB_DIR": "/opt/web",
            "REVERIE_MAX_BODY_BYTES": "2048", "REVERIE_SECURE_COOKIES": "always", "REVERIE_PATIENCE": "4",
            "REVERIE_NIGHT_STREAM_SECONDS": "3",
        ], locateWeb: web)
        #expect(config.host == "0.0.0.0")
        #expect(config.port == 9000)
        #expect(config.dataDirectory == "/var/lib/reverie")
        #expect(config.database == .postgres(url: "postgres://reverie:pw@db.local:5432/reverie"))
        #expect(config.database.kind == "postgresql")
        #expect(config.webDirectory == "/opt/web")
        #expect(config.maxBodyBytes == 2048)
        #expect(config.secureCookies == .always)
        #expect(config.patience == 4)
        #expect(config.nightStreamSeconds == 3)
    }

    @Test("flags win over environment variables")
    func flagsWin() throws {
        let config = try ServerConfig.resolve(
            overrides: .init(host: "::1", port: 7000, dataDirectory: "/tmp/r", databaseURL: "sqlite:/tmp/other.sqlite"),
            environment: ["REVERIE_HOST": "0.0.0.0", "REVERIE_PORT": "9000", "REVERIE_DATA_DIR": "/x",
                          "DATABASE_URL": "postgres://a@b/c"],
            locateWeb: web)
        #expect(config.host == "::1")
        #expect(config.port == 7000)
        #expect(config.dataDirectory == "/tmp/r")
        #expect(config.database == .sqlite(path: "/tmp/other.sqlite"))
    }

    @Test("the SQLite file follows the data directory")
    func sqliteFollowsDataDirectory() throws {
        let config = try ServerConfig.resolve(environment: ["REVERIE_DATA_DIR": "/srv/reverie"], locateWeb: web)
        #expect(config.database == .sqlite(path: "/srv/reverie/reverie.sqlite"))
    }

    @Test("bad values are refused with the setting named", arguments: [
        (["REVERIE_PORT": "eighty"], "REVERIE_PORT"),
        (["REVERIE_PORT": "70000"], "port"),
        (["DATABASE_URL": "mysql://x@y/z"], "DATABASE_URL"),
        (["DATABASE_URL": "postgres:///nohost"], "DATABASE_URL"),
        (["DATABASE_URL": "sqlite:"], "DATABASE_URL"),
        (["REVERIE_MAX_BODY_BYTES": "-1"], "REVERIE_MAX_BODY_BYTES"),
        (["REVERIE_SECURE_COOKIES": "sometimes"], "REVERIE_SECURE_COOKIES"),
        (["REVERIE_PATIENCE": "0"], "REVERIE_PATIENCE"),
        (["REVERIE_PATIENCE": "slow"], "REVERIE_PATIENCE"),
        (["REVERIE_NIGHT_STREAM_SECONDS": "0"], "REVERIE_NIGHT_STREAM_SECONDS"),
    ])
    func rejects(environment: [String: String], setting: String) {
        #expect {
            try ServerConfig.resolve(environment: environment, locateWeb: web)
        } throws: { error in
            guard case let ConfigError.invalid(named, _) = error else { return false }
            return named == setting
        }
    }

    @Test("postgresql:// is accepted as well as postgres://")
    func postgresqlScheme() throws {
        #expect(try ServerConfig.parseDatabaseURL("postgresql://u:p@127.0.0.1:5433/r") == .postgres(url: "postgresql://u:p@127.0.0.1:5433/r"))
    }
}
