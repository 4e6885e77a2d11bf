import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
@testable import ReverieServer
import Testing
import Vapor
import X509

/// HTTPS at home (issue 32): the local authority, the certificates it issues checked against
/// Apple's rules by OpenSSL, renewal, the settings, and a real HTTPS listener beside the plain one.
@Suite("HTTPS at home")
struct HTTPSTests {
    let names = ServerNames(dnsNames: ["reverie.test", "kitchen", "kitchen.local", "localhost"],
                            ipAddresses: ["192.168.1.20", "127.0.0.1", "::1"])

    @Test("the authority is made once, its key readable by the server alone, and opened again as it was")
    func authorityIsKept() throws {
        try withDirectory { directory in
            let first = try LocalAuthority.openOrCreate(in: directory)
            let again = try LocalAuthority.openOrCreate(in: directory)
            #expect(first.certificate == again.certificate)
            let key = LocalAuthority.path(.authorityKey, in: directory)
            let permissions = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600)
            #expect(try first.fingerprint.split(separator: ":").count == 32)
        }
    }

    @Test("a server certificate meets Apple's rules for a private authority, as OpenSSL reads it")
    func appleRules() throws {
        try withDirectory { directory in
            let authority = try LocalAuthority.openOrCreate(in: directory)
            let (issued, renewed) = try authority.serverCertificate(for: names)
            #expect(renewed)
            let serverPath = LocalAuthority.path(.serverCertificate, in: directory)
            let text = try openssl(["x509", "-in", serverPath, "-noout", "-text"])
            #expect(text.contains("DNS:reverie.test"))
            #expect(text.contains("DNS:kitchen.local"))
            #expect(text.contains("DNS:localhost"))
            #expect(text.contains("IP Address:192.168.1.20"))
            #expect(text.contains("IP Address:127.0.0.1"))
            #expect(text.contains("TLS Web Server Authentication"))       // the serverAuth extended key usage
            #expect(text.contains("ecdsa-with-SHA256"))
            #expect(text.contains("prime256v1") || text.contains("P-256"))
            #expect(text.contains("CA:FALSE"))
            let days = issued.certificate.notValidAfter.timeIntervalSince(issued.certificate.notValidBefore) / 86_400
            #expect(days <= 825)
            // The chain verifies against the authority, for the name a phone uses.
            let verified = try openssl(["verify", "-CAfile", LocalAuthority.path(.authorityCertificate, in: directory),
                                        "-verify_hostname", "kitchen.local", "-purpose", "sslserver", serverPath])
            #expect(verified.contains(": OK"))
            let authorityText = try openssl(["x509", "-in", LocalAuthority.path(.authorityCertificate, in: directory), "-noout", "-text"])
            #expect(authorityText.contains("CA:TRUE"))
            #expect(authorityText.contains("Certificate Sign"))
        }
    }

    @Test("the certificate is issued again when the addresses change or its end nears, and kept otherwise")
    func renewal() throws {
        try withDirectory { directory in
            let authority = try LocalAuthority.openOrCreate(in: directory)
            let now = Date()
            let (first, _) = try authority.serverCertificate(for: names, now: now)
            let (same, renewedSame) = try authority.serverCertificate(for: names, now: now.addingTimeInterval(86_400))
            #expect(!renewedSame)
            #expect(same.certificate == first.certificate)
            let moved = ServerNames(dnsNames: names.dnsNames, ipAddresses: ["192.168.1.77", "127.0.0.1", "::1"])
            let (afterMove, renewedMove) = try authority.serverCertificate(for: moved, now: now)
            #expect(renewedMove)
            #expect(afterMove.certificate != first.certificate)
            let late = now.addingTimeInterval(Double(LocalAuthority.serverValidityDays - LocalAuthority.renewalDays + 1) * 86_400)
            let (_, renewedLate) = try authority.serverCertificate(for: moved, now: late)
            #expect(renewedLate)
        }
    }

    @Test("names: the machine's name, its .local name and localhost; addresses normalised, each once")
    func machineNames() {
        let machine = ServerNames.machine(hostname: "Kitchen", addresses: ["192.168.1.20", "fe80::1%eth0", "192.168.1.20", "not an address"],
                                          extra: ["Reverie.Test"])
        #expect(machine.dnsNames == ["kitchen", "kitchen.local", "localhost", "reverie.test"])
        #expect(machine.ipAddresses == ["127.0.0.1", "192.168.1.20", "::1", "fe80::1"])
        #expect(WelcomeController.reachableNames(machine.dnsNames + machine.ipAddresses, host: "0.0.0.0")
                == ["192.168.1.20", "kitchen.local", "kitchen", "reverie.test"])
        #expect(WelcomeController.reachableNames(machine.dnsNames, host: "192.168.1.20") == ["192.168.1.20"])
    }

    @Test("HTTPS is on beyond loopback, off on it, and the owner's certificate needs its key", arguments: [
        (["REVERIE_HOST": "0.0.0.0"], true), (["REVERIE_HOST": "127.0.0.1"], false), (["REVERIE_HOST": "localhost"], false),
        (["REVERIE_HOST": "192.168.1.20"], true), (["REVERIE_HOST": "0.0.0.0", "REVERIE_TLS": "off"], false),
        (["REVERIE_TLS": "on"], true),
    ])
    func settings(environment: [String: String], enabled: Bool) throws {
        let config = try ServerConfig.resolve(environment: environment, locateWeb: { "/srv/web" })
        #expect(config.tls.enabled == enabled)
        #expect(config.tls.port == 8443)
        #expect(config.tls.source == .localAuthority)
    }

    @Test("the owner's certificate and key come as a pair")
    func ownCertificate() throws {
        let both = try ServerConfig.resolve(environment: ["REVERIE_TLS_CERT": "/etc/c.pem", "REVERIE_TLS_KEY": "/etc/k.pem", "REVERIE_TLS_NAMES": "a.test, b.test"],
                                            locateWeb: { "/srv/web" })
        #expect(both.tls.source == .files(certificate: "/etc/c.pem", key: "/etc/k.pem"))
        #expect(both.tls.extraNames == ["a.test", "b.test"])
        #expect(throws: ConfigError.self) { try ServerConfig.resolve(environment: ["REVERIE_TLS_CERT": "/etc/c.pem"], locateWeb: { "/srv/web" }) }
        #expect(throws: ConfigError.self) { try ServerConfig.resolve(environment: ["REVERIE_TLS": "maybe"], locateWeb: { "/srv/web" }) }
    }

    @Test("the iPhone profile is a property list holding the authority as a root")
    func profile() throws {
        try withDirectory { directory in
            let authority = try LocalAuthority.openOrCreate(in: directory)
            let text = try WelcomeController.profile(for: authority)
            let plist = try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: Any]
            let payload = (plist?["PayloadContent"] as? [[String: Any]])?.first
            #expect(payload?["PayloadType"] as? String == "com.apple.security.root")
            #expect((payload?["PayloadContent"] as? Data).map(Array.init) == (try authority.certificateDER))
            #expect(try WelcomeController.profile(for: authority) == text)   // the same profile each time
        }
    }

    @Test("a real HTTPS listener beside the plain one: trusted through the authority, and plain HTTP from another device is sent to /welcome")
    func listener() async throws {
        try await withTestApp(.sqlite, adjust: { $0.tls = TLSSettings(enabled: true, port: 0, extraNames: ["reverie.test"]) }) { client in
            let app = client.app
            let config = try #require(client.config)
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            do {
                try await checkListener(app, config)
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    private func checkListener(_ app: Application, _ config: ServerConfig) async throws {
        do {
            let service = try await HTTPSService.start(app, settings: config.tls, host: "127.0.0.1", dataDirectory: config.dataDirectory)
            let httpPort = try #require(app.http.server.shared.localAddress?.port)
            app.httpsRegistry.started(service, httpPort: httpPort)
            let port = try #require(service.port)
            #expect(port != httpPort)

            // A client that trusts only the local authority reaches the app over HTTPS, by a name it covers.
            let authorityPEM = try String(contentsOfFile: LocalAuthority.path(.authorityCertificate, in: config.dataDirectory + "/tls"), encoding: .utf8)
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8)))
            // Waits as long as a busy machine needs to answer (the server is in this process).
            let http = HTTPClient(eventLoopGroupProvider: .singleton,
                                  configuration: .init(tlsConfiguration: tls, timeout: .init(connect: .seconds(120), read: .seconds(300))))
            do {
                let trust = try await http.execute(HTTPClientRequest(url: "https://localhost:\(port)/welcome/trust"), timeout: .seconds(300))
                #expect(trust.status == .ok)
                #expect(trust.headers.first(name: "Access-Control-Allow-Origin") == "*")
                let body = try await trust.body.collect(upTo: 1 << 16)
                #expect(String(buffer: body).contains("\"trusted\":true"))
                let health = try await http.execute(HTTPClientRequest(url: "https://127.0.0.1:\(port)/api/health"), timeout: .seconds(300))
                #expect(health.status == .ok)
                // Plain HTTP on this machine is served as before, and says it is not over TLS.
                let plain = try await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(httpPort)/welcome/trust"), timeout: .seconds(300))
                #expect(String(buffer: try await plain.body.collect(upTo: 1 << 16)).contains("\"trusted\":false"))
                // The welcome page's facts: the authority, and what the certificate covers.
                let about = try await http.execute(HTTPClientRequest(url: "https://localhost:\(port)/welcome/about"), timeout: .seconds(300))
                let aboutText = String(buffer: try await about.body.collect(upTo: 1 << 20))
                #expect(aboutText.contains("reverie.test"))
                #expect(aboutText.contains(try service.authority!.fingerprint))
                #expect(aboutText.contains("https://127.0.0.1:\(port)/"))
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()

            // Another device over plain HTTP: a page is sent to /welcome, the API is refused with the HTTPS address.
            let phone = try SocketAddress(ipAddress: "192.168.1.7", port: 50_000)
            let page = try await respond(app, .GET, "/listen", from: phone)
            #expect(page.status == .seeOther)
            #expect(page.headers.first(name: .location) == "/welcome")
            let api = try await respond(app, .POST, "/api/auth/login", from: phone)
            #expect(api.status == .forbidden)
            #expect(api.body.string?.contains("https_required") == true)
            let welcome = try await respond(app, .GET, "/welcome/reverie-ca.crt", from: phone)
            #expect(welcome.status == .ok)
            #expect(welcome.headers.contentType == HTTPMediaType(type: "application", subType: "x-x509-ca-cert"))
            // This machine over plain HTTP is not redirected.
            let local = try await respond(app, .GET, "/listen", from: try SocketAddress(ipAddress: "127.0.0.1", port: 50_000))
            #expect(local.status == .ok)

            // Nothing changed: the certificate is kept.
            #expect(try service.refresh() == false)
        }
    }

    @Test("the owner's own certificate is served, and read again when its files change")
    func ownFilesAreReadAgain() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-own-tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        // A certificate made elsewhere stands in for Let's Encrypt's or tailscale's.
        let issuer = try LocalAuthority.openOrCreate(in: elsewhere)
        let certificatePath = elsewhere + "/own.pem", keyPath = elsewhere + "/own.key"
        func install(_ names: [String]) throws {
            let issued = try issuer.issue(for: ServerNames(dnsNames: names, ipAddresses: ["127.0.0.1"]))
            try issued.chainPEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
            try issued.keyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        }
        try install(["home.example.org"])
        try await withTestApp(.sqlite, adjust: {
            $0.tls = TLSSettings(enabled: true, port: 0, source: .files(certificate: certificatePath, key: keyPath))
        }) { client in
            let app = client.app
            let config = try #require(client.config)
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            do {
                let service = try await HTTPSService.start(app, settings: config.tls, host: "127.0.0.1", dataDirectory: config.dataDirectory)
                #expect(service.authority == nil)
                #expect(service.certificate?.names == ["home.example.org"])
                #expect(try service.refresh() == false)
                try install(["renewed.example.org"])
                #expect(try service.refresh() == true)
                #expect(service.certificate?.names == ["renewed.example.org"])
                #expect(!FileManager.default.fileExists(atPath: config.dataDirectory + "/tls/ca.key"), "no authority is made when the owner brings a certificate")
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    // MARK: - Helpers

    private func respond(_ app: Application, _ method: HTTPMethod, _ path: String, from address: SocketAddress) async throws -> Response {
        let request = Request(application: app, method: method, url: URI(path: path), remoteAddress: address, on: app.eventLoopGroup.next())
        return try await app.responder.current.respond(to: request).get()
    }

    private func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-tls-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    private func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
