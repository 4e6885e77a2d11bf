import Foundation
import NIOConcurrencyHelpers
import NIOSSL
import SwiftASN1
import X509
import Vapor

/// How the server serves HTTPS (`ServerConfig.tls`).
public struct TLSSettings: Sendable, Equatable {
    /// Where the certificate comes from.
    public enum Source: Sendable, Equatable {
        /// Issued by the server's own authority in `<data>/tls/` for every name the machine answers to.
        case localAuthority
        /// The owner's own (Let's Encrypt, `tailscale cert`): PEM files, read again when they change.
        case files(certificate: String, key: String)
    }

    /// Whether an HTTPS listener runs beside the plain one.
    public var enabled: Bool
    /// Its port; 0 picks a free one.
    public var port: Int
    public var source: Source
    /// Names the local authority's certificate also covers (`REVERIE_TLS_NAMES`).
    public var extraNames: [String]

    public init(enabled: Bool = false, port: Int = 8443, source: Source = .localAuthority, extraNames: [String] = []) {
        self.enabled = enabled
        self.port = port
        self.source = source
        self.extraNames = extraNames
    }

    /// Whether `host` (a listening address or a name) is this machine's loopback, where plain HTTP
    /// is already a secure context.
    public static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return name == "localhost" || name == "::1" || name.hasPrefix("127.") || name.hasPrefix("::ffff:127.")
    }
}

// MARK: - Which listener a request came through

private struct CameOverTLSKey: StorageKey { typealias Value = Bool }

extension Request {
    /// True for a request that came through the HTTPS listener.
    public var cameOverTLS: Bool { storage[CameOverTLSKey.self] ?? false }
}

/// The app's responder, marking each request as one that came over HTTPS.
private struct TLSMarkingResponder: Responder {
    let next: any Responder

    func respond(to request: Request) -> EventLoopFuture<Response> {
        request.storage[CameOverTLSKey.self] = true
        return next.respond(to: request)
    }
}

// MARK: - The HTTPS listener

/// The app served over HTTPS on a port of its own, beside the plain listener. Its certificate is
/// looked at again every minute: the local authority's is issued anew when the machine's names or
/// addresses change or its end nears, and the owner's files are read again when they change.
/// The local authority itself is renewed the same way: a year before it ends its successor is
/// made and offered on `/welcome`, and a month before, the server moves to it.
/// Vapor makes each connection's TLS context from the server's current configuration, so a new
/// certificate serves the next connection with nothing restarted.
public final class HTTPSService: Sendable {
    public let settings: TLSSettings
    private let server: HTTPServer
    private let application: Application
    private let state: NIOLockedValueBox<State>
    private let refresher: NIOLockedValueBox<Task<Void, Never>?>

    private struct State {
        /// The local authority, when it is the source, and its successor once one is made.
        var authority: LocalAuthority?
        var next: LocalAuthority?
        var names: ServerNames?
        var stamp: String?         // the owner's files' sizes and times when last read
        var certificate: ServerCertificateSummary?
    }

    /// Starts the listener on `host`. Call after the plain listener started.
    public static func start(_ app: Application, settings: TLSSettings, host: String, dataDirectory: String) async throws -> HTTPSService {
        let authority: LocalAuthority? = switch settings.source {
        case .localAuthority: try LocalAuthority.openOrCreate(in: (dataDirectory as NSString).appendingPathComponent("tls"),
                                                              names: ServerNames.current(extra: settings.extraNames))
        case .files: nil
        }
        let kept = app.http.server.configuration
        var configuration = kept
        configuration.address = .hostname(host, port: settings.port)
        configuration.supportVersions = [.one, .two]
        let server = HTTPServer(application: app, responder: TLSMarkingResponder(next: app.responder.current),
                                configuration: configuration, on: app.eventLoopGroup)
        let service = HTTPSService(settings: settings, authority: authority, server: server, application: app)
        _ = try service.refresh()
        try await server.start(address: nil)
        // Vapor keeps a started server's configuration as the application's too: the plain
        // listener's is put back.
        app.http.server.configuration = kept
        service.startRefreshing()
        app.lifecycle.use(Stopper(service: service))
        return service
    }

    private init(settings: TLSSettings, authority: LocalAuthority?, server: HTTPServer, application: Application) {
        self.settings = settings
        self.server = server
        self.application = application
        self.state = .init(State(authority: authority))
        self.refresher = .init(nil)
    }

    /// The port it listens on.
    public var port: Int? { server.localAddress?.port }

    /// The local authority, when it is the source.
    public var authority: LocalAuthority? { state.withLockedValue { $0.authority } }
    /// Its successor, from a year before it ends until the server moves to it.
    public var nextAuthority: LocalAuthority? { state.withLockedValue { $0.next } }

    /// What the current certificate covers and until when.
    public var certificate: ServerCertificateSummary? { state.withLockedValue { $0.certificate } }

    /// Looks at the certificate again; true when it changed.
    @discardableResult
    public func refresh(now: Date = Date()) throws -> Bool {
        let tls: TLSConfiguration
        let summary: ServerCertificateSummary
        switch settings.source {
        case .localAuthority:
            guard var authority = self.authority else { return false }
            let names = ServerNames.current(extra: settings.extraNames)
            // (The files are read only once the handover is due.)
            let due = authority.certificate.notValidAfter.timeIntervalSince(now) < Double(LocalAuthority.handoverDays) * 86_400
            let handedOver = due ? try LocalAuthority.handOver(in: authority.directory, now: now) : nil
            if let handedOver {
                authority = handedOver
                let fingerprint = try handedOver.fingerprint
                application.logger.notice("HTTPS: the local authority ended within \(LocalAuthority.handoverDays) days, so the server now uses the one that follows it (\(fingerprint)); a device that did not install it from /welcome needs to now.")
            }
            let knewNext = state.withLockedValue { $0.next != nil }
            let next = try authority.successor(names: names, now: now)
            if let next, !knewNext {
                let fingerprint = try next.fingerprint
                application.logger.notice("HTTPS: the local authority ends on \(authority.certificate.notValidAfter); the one that follows it is made (\(fingerprint)). Install it on each device from /welcome; the server moves to it \(LocalAuthority.handoverDays) days before the end.")
            }
            state.withLockedValue { $0.authority = authority; $0.next = next }
            let unchanged = handedOver == nil && state.withLockedValue { $0.names == names && $0.certificate.map { $0.notValidAfter.timeIntervalSince(now) > Double(LocalAuthority.renewalDays) * 86_400 } == true }
            if unchanged { return false }
            let (covered, outside) = authority.signable(names)
            if !outside.isEmpty {
                application.logger.warning("""
                    HTTPS: the local authority may not sign \(outside.joined(separator: ", ")) (it was made for other names), so the certificate leaves \
                    them out. To add them, make a new authority with `reverie tls new-authority` and trust it again on each device.
                    """)
            }
            let (issued, _) = try authority.serverCertificate(for: names, now: now)
            tls = try Self.configuration(chainPEM: try issued.chainPEM, keyPEM: issued.keyPEM)
            summary = ServerCertificateSummary(names: covered.dnsNames + covered.ipAddresses, notValidAfter: issued.certificate.notValidAfter,
                                               outside: outside)
            state.withLockedValue { $0.names = names }
        case .files(let certificatePath, let keyPath):
            let stamp = Self.stamp(certificatePath) + "|" + Self.stamp(keyPath)
            if state.withLockedValue({ $0.stamp == stamp }) { return false }
            guard let chainPEM = try? String(contentsOfFile: certificatePath, encoding: .utf8) else {
                throw TLSSetupError("cannot read the certificate \(certificatePath)")
            }
            guard let keyPEM = try? String(contentsOfFile: keyPath, encoding: .utf8) else {
                throw TLSSetupError("cannot read the key \(keyPath)")
            }
            tls = try Self.configuration(chainPEM: chainPEM, keyPEM: keyPEM)
            summary = ServerCertificateSummary(files: chainPEM)
            state.withLockedValue { $0.stamp = stamp }
        }
        let kept = application.http.server.configuration
        var configuration = server.configuration
        configuration.tlsConfiguration = tls
        server.configuration = configuration
        application.http.server.configuration = kept
        state.withLockedValue { $0.certificate = summary }
        return true
    }

    private func startRefreshing() {
        let logger = application.logger
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
                guard let self, !Task.isCancelled else { return }
                do {
                    if try self.refresh() { logger.notice("HTTPS certificate renewed: \(self.certificate?.names.joined(separator: ", ") ?? "")") }
                } catch {
                    logger.error("HTTPS certificate could not be renewed: \(error)")
                }
            }
        }
        refresher.withLockedValue { $0 = task }
    }

    func shutdown() async {
        refresher.withLockedValue { $0?.cancel() }
        await server.shutdown()
    }

    /// A TLS server configuration from a PEM chain and key; the error says which file is wrong.
    static func configuration(chainPEM: String, keyPEM: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8)) } catch {
            throw TLSSetupError("the certificate is not PEM that OpenSSL can read (\(error))")
        }
        guard !chain.isEmpty else { throw TLSSetupError("the certificate file holds no certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem) } catch {
            throw TLSSetupError("the key is not a PEM private key that OpenSSL can read (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }

    private static func stamp(_ path: String) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return "missing" }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? -1
        let time = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "\(size)@\(time)"
    }

    private struct Stopper: LifecycleHandler {
        let service: HTTPSService
        func shutdownAsync(_ application: Application) async { await service.shutdown() }
    }
}

/// What a served certificate covers, for the start-up message and `/welcome`.
public struct ServerCertificateSummary: Sendable, Equatable {
    public let names: [String]
    public let notValidAfter: Date
    /// The machine's names the local authority may not sign, left out of `names`.
    public let outside: [String]

    init(names: [String], notValidAfter: Date, outside: [String] = []) {
        self.names = names
        self.notValidAfter = notValidAfter
        self.outside = outside
    }

    /// The first certificate of an owner's PEM chain.
    init(files chainPEM: String) {
        let first = (try? PEMDocument.parseMultiple(pemString: chainPEM))?.first.flatMap { try? Certificate(pemDocument: $0) }
        let names = (try? first?.extensions.subjectAlternativeNames)?.compactMap { name -> String? in
            if case .dnsName(let text) = name { return text }
            return nil
        } ?? []
        self.init(names: names, notValidAfter: first?.notValidAfter ?? .distantFuture)
    }
}
