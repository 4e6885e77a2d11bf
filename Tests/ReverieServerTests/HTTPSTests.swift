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

    @Test("the authority may sign only the home's names (issue 50): nameConstraints, critical, as OpenSSL reads them; a certificate it signed for a public site fails OpenSSL's check; a bare name is left out")
    func nameConstraints() throws {
        try withDirectory { directory in
            let home = ServerNames(dnsNames: ["kitchen", "kitchen.local", "localhost", "reverie.test", "music.example.org"],
                                   ipAddresses: ["192.168.1.20", "203.0.113.7", "127.0.0.1", "::1"])
            let authority = try LocalAuthority.openOrCreate(in: directory, names: home)
            let authorityPath = LocalAuthority.path(.authorityCertificate, in: directory)
            let text = try openssl(["x509", "-in", authorityPath, "-noout", "-text"])
            #expect(text.contains("X509v3 Name Constraints: critical"), "\(text)")
            let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            for permitted in ["DNS:localhost", "DNS:local", "DNS:home.arpa", "DNS:test", "DNS:music.example.org", "IP:192.168.0.0/255.255.0.0",
                              "IP:10.0.0.0/255.0.0.0", "IP:127.0.0.0/255.0.0.0"] {
                #expect(lines.contains(permitted), "\(permitted) is not permitted")
            }
            // "kitchen" as a constraint would permit a public .kitchen domain too: it is not one;
            // kitchen.local is under local already.
            // A public address is not one either (an IPv6 one changes with its provider's prefix).
            #expect(!lines.contains("DNS:kitchen") && !lines.contains("DNS:kitchen.local") && !lines.contains("IP:192.168.1.20/255.255.255.255"))
            #expect(!lines.contains("IP:203.0.113.7/255.255.255.255"))
            let (covered, outside) = authority.signable(home)
            #expect(outside.isEmpty)
            #expect(authority.signable(ServerNames(dnsNames: ["music.example.net"], ipAddresses: ["8.8.8.8"])).outside == ["music.example.net"])
            #expect(covered.dnsNames == ["kitchen.local", "localhost", "music.example.org", "reverie.test"])
            #expect(covered.ipAddresses == ["127.0.0.1", "192.168.1.20", "::1"])
            // The server certificate leaves the bare name out, and verifies.
            let (issued, _) = try authority.serverCertificate(for: home)
            #expect(Set(try #require(try issued.certificate.extensions.subjectAlternativeNames)) == Set(covered.generalNames))
            let serverPath = LocalAuthority.path(.serverCertificate, in: directory)
            #expect(try openssl(["verify", "-CAfile", authorityPath, "-verify_hostname", "kitchen.local", "-purpose", "sslserver", serverPath]).contains(": OK"))
            // Were its key to leak, what it signs for another site is refused.
            for (names, label) in [(ServerNames(dnsNames: ["bank.example.com"], ipAddresses: []), "a public name"),
                                   (ServerNames(dnsNames: ["localhost"], ipAddresses: ["8.8.8.8"]), "a public address"),
                                   (ServerNames(dnsNames: ["kitchen"], ipAddresses: []), "a bare name")] {
                let forged = try authority.issue(for: names)
                let forgedPath = directory + "/forged.pem"
                try forged.certificate.serializeAsPEM().pemString.write(toFile: forgedPath, atomically: true, encoding: .utf8)
                let verdict = try openssl(["verify", "-CAfile", authorityPath, "-purpose", "sslserver", forgedPath])
                #expect(!verdict.contains(": OK") && verdict.contains("subtree violation"), "\(label): \(verdict)")
            }
        }
    }

    @Test("a new authority replaces the old, whose files are kept beside it, dated; it covers a name added since")
    func newAuthority() throws {
        try withDirectory { directory in
            let before = ServerNames(dnsNames: ["kitchen.local", "localhost"], ipAddresses: ["127.0.0.1"])
            let old = try LocalAuthority.openOrCreate(in: directory, names: before)
            _ = try old.serverCertificate(for: before)
            let added = ServerNames(dnsNames: ["kitchen.local", "localhost", "music.example.org"], ipAddresses: ["127.0.0.1"])
            #expect(old.signable(added).outside == ["music.example.org"])
            let new = try LocalAuthority.replace(in: directory, names: added, now: Date(timeIntervalSince1970: 1_796_083_200))
            #expect(try new.fingerprint != (try old.fingerprint))
            #expect(new.signable(added).outside.isEmpty)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(files == ["ca.crt", "ca.crt.replaced-20261201", "ca.key", "ca.key.replaced-20261201",
                              "server.crt.replaced-20261201", "server.key.replaced-20261201"], "\(files)")
            #expect(try LocalAuthority.openOrCreate(in: directory).certificate == new.certificate)
            #expect(new.endsSoon(now: Date(timeIntervalSince1970: 1_796_083_200)) == nil)
            #expect(new.endsSoon(now: new.certificate.notValidAfter.addingTimeInterval(-30 * 86_400)) == new.certificate.notValidAfter)
        }
    }

    @Test("the authority renews itself (issue 50): its successor is made a year before it ends, with the same constraints, and the files move over to it a month before; a new authority by hand sets a pending successor aside")
    func authorityRenewsItself() throws {
        try withDirectory { directory in
            let day = 86_400.0
            let made = Date(timeIntervalSince1970: 1_796_083_200)   // 2026-12-01
            let old = try LocalAuthority.openOrCreate(in: directory, names: names, now: made)
            let end = old.certificate.notValidAfter
            _ = try old.serverCertificate(for: names, now: made)
            // Nine years on, nothing yet.
            #expect(try old.successor(names: names, now: made.addingTimeInterval(9 * 365 * day)) == nil)
            #expect(try LocalAuthority.handOver(in: directory, now: made.addingTimeInterval(9 * 365 * day)) == nil)
            // Within a year of the end: the successor, once, limited as the authority is.
            let warned = end.addingTimeInterval(-200 * day)
            let next = try #require(try old.successor(names: names, now: warned))
            #expect(try next.fingerprint != (try old.fingerprint))
            #expect(try old.successor(names: names, now: warned.addingTimeInterval(day))?.certificate == next.certificate)
            #expect(try next.certificate.extensions.nameConstraints == (try old.certificate.extensions.nameConstraints))
            #expect(next.certificate.subject.description.contains("2036"), "\(next.certificate.subject)")
            #expect(old.certificate.subject.description.contains("2026"), "\(old.certificate.subject)")
            // Not handed over while more than a month is left; then it is.
            #expect(try LocalAuthority.handOver(in: directory, now: warned) == nil)
            let moved = try #require(try LocalAuthority.handOver(in: directory, now: end.addingTimeInterval(-20 * day)))
            #expect(moved.certificate == next.certificate)
            #expect(try LocalAuthority.openOrCreate(in: directory).certificate == next.certificate)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(files == ["ca.crt", "ca.crt.retired-20361108", "ca.key", "ca.key.retired-20361108",
                              "server.crt.retired-20361108", "server.key.retired-20361108"], "\(files)")
            // The new one has its ten years ahead: no successor of its own, and a certificate it signed.
            #expect(try moved.successor(names: names, now: end) == nil)
            let (issued, renewed) = try moved.serverCertificate(for: names, now: end.addingTimeInterval(-20 * day))
            #expect(renewed && issued.certificate.issuer == next.certificate.subject)
        }
        try withDirectory { directory in
            let made = Date(timeIntervalSince1970: 1_796_083_200)
            let old = try LocalAuthority.openOrCreate(in: directory, names: names, now: made)
            _ = try old.successor(names: names, now: old.certificate.notValidAfter.addingTimeInterval(-100 * 86_400))
            _ = try LocalAuthority.replace(in: directory, names: names, now: made)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            #expect(files == ["ca-next.crt.replaced-20261201", "ca-next.key.replaced-20261201", "ca.crt", "ca.crt.replaced-20261201",
                              "ca.key", "ca.key.replaced-20261201"], "\(files)")
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

            // A client that trusts only the local authority reaches the app over HTTPS, by a name it
            // covers: curl, whose OpenSSL checks the authority's name constraints, IP ranges too
            // (BoringSSL's verifier, under Swift's HTTP clients, refuses any IP constraint).
            let authority = LocalAuthority.path(.authorityCertificate, in: config.dataDirectory + "/tls")
            let trust = try await Self.curl("https://localhost:\(port)/welcome/trust", trusting: authority)
            #expect(trust.status == 200, "\(trust.error)")
            #expect(trust.head.lowercased().contains("access-control-allow-origin: *"))
            #expect(trust.body.contains("\"trusted\":true"))
            let health = try await Self.curl("https://127.0.0.1:\(port)/api/health", trusting: authority)
            #expect(health.status == 200, "\(health.error)")
            // Plain HTTP on this machine is served as before, and says it is not over TLS.
            let plain = try await Self.curl("http://127.0.0.1:\(httpPort)/welcome/trust", trusting: authority)
            #expect(plain.body.contains("\"trusted\":false"))
            // The welcome page's facts: the authority, and what the certificate covers.
            let about = try await Self.curl("https://localhost:\(port)/welcome/about", trusting: authority)
            #expect(about.body.contains("reverie.test"))
            #expect(about.body.contains(try service.authority!.fingerprint))
            #expect(about.body.contains("https://127.0.0.1:\(port)/"))
            #expect(about.body.contains("\"mayName\":[\"localhost\",\"local\",\"home.arpa\""), "\(about.body)")

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

    @Test("a running server renews its authority (issue 50): /welcome offers the one that follows, and the server moves to it with nothing restarted; a client trusting only the new one then connects")
    func listenerRenewsItsAuthority() async throws {
        try await withTestApp(.sqlite, adjust: { $0.tls = TLSSettings(enabled: true, port: 0, extraNames: ["reverie.test"]) }) { client in
            let app = client.app
            let config = try #require(client.config)
            // An authority made nearly ten years ago: it ends in 20 days.
            let directory = config.dataDirectory + "/tls"
            let old = try LocalAuthority.openOrCreate(in: directory, names: ServerNames.current(extra: ["reverie.test"]),
                                                      now: Date().addingTimeInterval(-Double(LocalAuthority.authorityValidityDays - 20) * 86_400))
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            do {
                let service = try await HTTPSService.start(app, settings: config.tls, host: "127.0.0.1", dataDirectory: config.dataDirectory)
                app.httpsRegistry.started(service, httpPort: app.http.server.shared.localAddress?.port)
                let port = try #require(service.port)
                let oldPath = LocalAuthority.path(.authorityCertificate, in: directory)
                let next = try #require(service.nextAuthority)
                let nextFingerprint = try next.fingerprint, oldFingerprint = try old.fingerprint
                let nextDER = try next.certificateDER
                // Still served by the old one, which offers the next on /welcome.
                let about = try await Self.curl("https://localhost:\(port)/welcome/about", trusting: oldPath)
                #expect(about.status == 200, "\(about.error)")
                #expect(about.body.contains("\"next\":{") && about.body.contains(nextFingerprint), "\(about.body)")
                let offered = try await client.send(.GET, "/welcome/reverie-ca-next.crt")
                #expect(offered.status == .ok && Array(offered.bytes) == nextDER)
                let profile = try await client.send(.GET, "/welcome/reverie-ca-next.mobileconfig")
                #expect(profile.status == .ok && profile.text.contains(Data(nextDER).base64EncodedString()))
                // A device that installed it keeps the old one for now.
                let nextPath = directory + "/installed-next.crt"
                try next.certificate.serializeAsPEM().pemString.write(toFile: nextPath, atomically: true, encoding: .utf8)
                try FileManager.default.copyItem(atPath: oldPath, toPath: directory + "/installed-old.crt")
                // The next look (every minute) moves over: the certificate is now the new one's.
                #expect(try service.refresh())
                #expect(service.authority?.certificate == next.certificate && service.nextAuthority == nil)
                let after = try await Self.curl("https://localhost:\(port)/api/health", trusting: nextPath)
                #expect(after.status == 200, "\(after.error)")
                let stale = try await Self.curl("https://localhost:\(port)/api/health", trusting: directory + "/installed-old.crt")
                #expect(stale.status == 0 && !stale.error.isEmpty, "a client trusting only the old authority still connected")
                let aboutAfter = try await client.send(.GET, "/welcome/about")
                #expect(aboutAfter.text.contains(nextFingerprint) && !aboutAfter.text.contains(oldFingerprint))
                #expect(try await client.send(.GET, "/welcome/reverie-ca-next.crt").status == .notFound)
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
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

    /// One request with curl trusting only `authority`: the status, the head and body, and what
    /// curl said on failure. On a thread of its own (the server answering is in this process);
    /// `--max-time` bounds only a broken server.
    static func curl(_ url: String, trusting authority: String) async throws -> (status: Int, head: String, body: String, error: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    let head = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-curl-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: head) }
                    process.arguments = ["--silent", "--show-error", "--cacert", authority, "--max-time", "300", "--dump-header", head.path, url]
                    let output = Pipe(), errors = Pipe()
                    process.standardOutput = output
                    process.standardError = errors
                    try process.run()
                    let body = output.fileHandleForReading.readDataToEndOfFile()
                    let error = errors.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    let headText = (try? String(contentsOf: head, encoding: .utf8)) ?? ""
                    let status = headText.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                    return (status, headText, String(decoding: body, as: UTF8.self), String(decoding: error, as: UTF8.self))
                })
            }
        }
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
