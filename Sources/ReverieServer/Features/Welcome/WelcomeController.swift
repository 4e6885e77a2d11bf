import Crypto
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// The HTTPS listener once `reverie serve` has started it (nil while it serves loopback alone):
/// the welcome page and the plain-HTTP guard read it per request.
public final class HTTPSRegistry: Sendable {
    private let box = NIOLockedValueBox<HTTPSService?>(nil)
    private let plainPort = NIOLockedValueBox<Int?>(nil)

    public init() {}

    public var service: HTTPSService? { box.withLockedValue { $0 } }
    /// The plain listener's port (the real one when 0 was asked for).
    public var httpPort: Int? { plainPort.withLockedValue { $0 } }

    public func started(_ service: HTTPSService?, httpPort: Int?) {
        box.withLockedValue { $0 = service }
        plainPort.withLockedValue { $0 = httpPort }
    }
}

/// `/welcome`: what a phone needs to open Reverie over HTTPS at home. The addresses to open (and a
/// QR code of the first), the local authority's certificate as a `.crt` (Android, desktops) and a
/// `.mobileconfig` profile (iPhone), each platform's steps, and a check that says when this device
/// trusts Reverie. It is answered over plain HTTP too: that is how a phone gets the certificate
/// before it trusts it.
struct WelcomeController: RouteCollection {
    let registry: HTTPSRegistry
    let settings: TLSSettings
    let host: String
    let webDirectory: String

    func boot(routes: any RoutesBuilder) throws {
        let welcome = routes.grouped("welcome")
        welcome.get(use: page)
        welcome.get("about", use: about)
        welcome.get("reverie-ca.crt") { try await certificate(req: $0, next: false) }
        welcome.get("reverie-ca.mobileconfig") { try await profile(req: $0, next: false) }
        welcome.get("reverie-ca-next.crt") { try await certificate(req: $0, next: true) }
        welcome.get("reverie-ca-next.mobileconfig") { try await profile(req: $0, next: true) }
        welcome.get("trust", use: trust)
    }

    /// The page: Web/welcome.html, allowed to ask the HTTPS addresses whether they are trusted.
    func page(req: Request) async throws -> Response {
        let path = URL(fileURLWithPath: webDirectory).appendingPathComponent("welcome.html").path
        guard let data = FileManager.default.contents(atPath: path) else { throw APIError.notFound("welcome page") }
        let response = Response(status: .ok, body: .init(data: data))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        response.headers.add(name: "Content-Security-Policy", value: SecurityHeadersMiddleware.contentSecurityPolicy
            .replacingOccurrences(of: "connect-src 'self'", with: "connect-src 'self' https:"))
        return response
    }

    func about(req: Request) async throws -> WelcomeAbout {
        let service = registry.service
        let secure = req.cameOverTLS || TLSSettings.isLoopback(req.remoteAddress?.ipAddress ?? "")
        guard let service, let port = service.port else {
            return WelcomeAbout(secureHere: secure, https: [], welcome: nil, authority: nil, certificate: nil, qrSVG: nil,
                                listening: host, httpsReason: settings.enabled ? "HTTPS could not start; the server's log says why." : "Reverie listens on \(host) alone, where plain HTTP already counts as secure. To open it from a phone, start it with make run HOST=0.0.0.0.")
        }
        let names = Self.reachableNames(service.certificate?.names ?? [], host: host)
        let https = names.map { "https://\(Self.urlHost($0)):\(port)/" }
        let httpPort = registry.httpPort
        let welcome = names.first.flatMap { name in httpPort.map { "http://\(Self.urlHost(name)):\($0)/welcome" } }
        var authority: WelcomeAbout.Authority?
        if let local = service.authority {
            let constraints = try? local.certificate.extensions.nameConstraints
            let next = try service.nextAuthority.map { next in
                WelcomeAbout.Authority.Next(fingerprint: try next.fingerprint, certificate: "/welcome/reverie-ca-next.crt",
                                            profile: "/welcome/reverie-ca-next.mobileconfig", notValidAfter: next.certificate.notValidAfter,
                                            handover: local.certificate.notValidAfter.addingTimeInterval(-Double(LocalAuthority.handoverDays) * 86_400))
            }
            authority = WelcomeAbout.Authority(fingerprint: try local.fingerprint, certificate: "/welcome/reverie-ca.crt",
                                               profile: "/welcome/reverie-ca.mobileconfig", notValidAfter: local.certificate.notValidAfter,
                                               endsSoon: local.endsSoon() != nil,
                                               mayName: constraints.map { Array($0.permittedDNSDomains) }, next: next)
        }
        let certificate = service.certificate.map { WelcomeAbout.Certificate(names: $0.names, notValidAfter: $0.notValidAfter, outside: $0.outside) }
        let qr = try await https.first.asyncMap { try await QRCode.svg(for: $0) } ?? nil
        return WelcomeAbout(secureHere: secure, https: https, welcome: welcome, authority: authority, certificate: certificate,
                            qrSVG: qr, listening: host, httpsReason: nil)
    }

    /// The authority's certificate, DER, for Android and desktops; with `next`, its successor's.
    func certificate(req: Request, next: Bool) async throws -> Response {
        let authority = try authority(next: next)
        let response = Response(status: .ok, body: .init(data: Data(try authority.certificateDER)))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "x-x509-ca-cert")
        response.headers.contentDisposition = .init(.attachment, filename: next ? "reverie-ca-next.crt" : "reverie-ca.crt")
        return response
    }

    /// The authority's certificate in a configuration profile, for iPhone and iPad; with `next`,
    /// its successor's (a profile of its own: a device holds both until the handover).
    func profile(req: Request, next: Bool) async throws -> Response {
        let authority = try authority(next: next)
        let response = Response(status: .ok, body: .init(string: try Self.profile(for: authority)))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "x-apple-aspen-config")
        response.headers.contentDisposition = .init(.attachment, filename: next ? "reverie-ca-next.mobileconfig" : "reverie-ca.mobileconfig")
        return response
    }

    private func authority(next: Bool) throws -> LocalAuthority {
        guard let service = registry.service, let authority = service.authority else { throw APIError.notFound("local certificate authority") }
        guard next else { return authority }
        guard let following = service.nextAuthority else {
            throw APIError(.notFound, code: "not_found", "The local authority has no successor yet: one is made a year before it ends (\(authority.certificate.notValidAfter)).")
        }
        return following
    }

    /// Asked from the welcome page over HTTPS: answering at all means the device trusted the
    /// certificate. Any page may ask (it says nothing private).
    func trust(req: Request) async throws -> Response {
        let response = try await WelcomeTrust(trusted: req.cameOverTLS).encodeResponse(for: req)
        response.headers.replaceOrAdd(name: .accessControlAllowOrigin, value: "*")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    // MARK: - Pieces

    /// The names a phone can reach: a specific listening address alone, else the certificate's
    /// names and addresses without loopback and link-local ones, addresses first (a phone may not
    /// resolve `.local`).
    static func reachableNames(_ names: [String], host: String) -> [String] {
        if !["0.0.0.0", "::", "[::]"].contains(host) { return [host] }
        let usable = names.filter { !TLSSettings.isLoopback($0) && !$0.lowercased().hasPrefix("fe80:") }
        let addresses = usable.filter { IPAddressText.bytes($0) != nil }
        let v4 = addresses.filter { $0.contains(".") }, v6 = addresses.filter { !$0.contains(".") }
        let dns = usable.filter { IPAddressText.bytes($0) == nil }
        return v4 + dns.filter { $0.hasSuffix(".local") } + dns.filter { !$0.hasSuffix(".local") } + v6
    }

    static func urlHost(_ name: String) -> String { name.contains(":") ? "[\(name)]" : name }

    /// An Apple configuration profile that installs `authority` as a root (`com.apple.security.root`);
    /// its UUIDs come from the certificate, so a profile downloaded twice is the same profile.
    static func profile(for authority: LocalAuthority) throws -> String {
        let der = try authority.certificateDER
        let digest = Array(SHA256.hash(data: der))
        func uuid(_ offset: Int) -> String {
            var bytes = Array(digest[offset..<offset + 16])
            bytes[6] = (bytes[6] & 0x0F) | 0x50   // a name-based UUID
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
        }
        // The year it ends tells the profile from the one that follows it: a device holds both
        // for a while, and the older can go once the server has moved on.
        let until = LocalAuthority.year(of: authority.certificate.notValidAfter)
        let name = authority.certificate.subject.description
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
          <key>PayloadContent</key>
          <array>
            <dict>
              <key>PayloadCertificateFileName</key><string>reverie-ca.crt</string>
              <key>PayloadContent</key><data>\(Data(der).base64EncodedString())</data>
              <key>PayloadDescription</key><string>Lets this device open Reverie over HTTPS at home.</string>
              <key>PayloadDisplayName</key><string>\(name)</string>
              <key>PayloadIdentifier</key><string>app.reverie.authority.\(uuid(0))</string>
              <key>PayloadType</key><string>com.apple.security.root</string>
              <key>PayloadUUID</key><string>\(uuid(0))</string>
              <key>PayloadVersion</key><integer>1</integer>
            </dict>
          </array>
          <key>PayloadDescription</key><string>Installs the certificate authority of your Reverie server. Then turn it on in Settings, General, About, Certificate Trust Settings.</string>
          <key>PayloadDisplayName</key><string>Reverie at home (until \(until))</string>
          <key>PayloadIdentifier</key><string>app.reverie.profile.\(uuid(16))</string>
          <key>PayloadRemovalDisallowed</key><false/>
          <key>PayloadType</key><string>Configuration</string>
          <key>PayloadUUID</key><string>\(uuid(16))</string>
          <key>PayloadVersion</key><integer>1</integer>
        </dict>
        </plist>

        """
    }
}

/// `GET /welcome/about`.
struct WelcomeAbout: Content {
    struct Authority: Content {
        let fingerprint: String
        let certificate: String
        let profile: String
        let notValidAfter: Date
        /// It ends within a year: make a new one and trust it on each device.
        let endsSoon: Bool
        /// The domains it may sign names under (with the home address ranges); nil for an
        /// authority made before name constraints, which may sign any.
        let mayName: [String]?
        /// The authority that follows it, from a year before it ends: each device installs it
        /// before `handover`, when the server moves to it.
        let next: Next?

        struct Next: Content {
            let fingerprint: String
            let certificate: String
            let profile: String
            let notValidAfter: Date
            let handover: Date
        }
    }
    struct Certificate: Content {
        let names: [String]
        let notValidAfter: Date
        /// The machine's names the authority may not sign, left out of `names`.
        let outside: [String]
    }
    /// This page counts as secure where it was opened (HTTPS, or loopback).
    let secureHere: Bool
    /// The addresses to open, best first; empty when HTTPS is off.
    let https: [String]
    /// The plain address of this page for another device (the QR code the terminal prints).
    let welcome: String?
    /// The local authority, or nil when the owner's own certificate is served.
    let authority: Authority?
    let certificate: Certificate?
    /// A QR code of the first HTTPS address, as SVG; nil without `qrencode`.
    let qrSVG: String?
    /// The address the server listens on.
    let listening: String
    /// Why there is no HTTPS address, when there is none.
    let httpsReason: String?
}

struct WelcomeTrust: Content {
    let trusted: Bool
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

private struct HTTPSRegistryKey: StorageKey { typealias Value = HTTPSRegistry }

extension Application {
    /// Where `reverie serve` says which HTTPS listener it started (set by `configure`).
    public var httpsRegistry: HTTPSRegistry {
        get { storage[HTTPSRegistryKey.self] ?? HTTPSRegistry() }
        set { storage[HTTPSRegistryKey.self] = newValue }
    }
}

extension HTTPSService {
    /// What `reverie serve` prints after its first line: the HTTPS addresses, and the welcome
    /// page's plain address with a QR code of it (the phone scans it to get set up).
    public func announcement(host: String, httpPort: Int, dataDirectory: String) async -> String {
        guard let port else { return "" }
        let names = WelcomeController.reachableNames(certificate?.names ?? [], host: host)
        var text = "HTTPS on port \(port) (certificate: \(authority == nil ? "yours" : "Reverie's local authority, in \(dataDirectory)/tls"))\n"
        for name in names.prefix(4) { text += "  open https://\(WelcomeController.urlHost(name)):\(port)/\n" }
        if let first = names.first {
            let welcome = "http://\(WelcomeController.urlHost(first)):\(httpPort)/welcome"
            text += "On a phone, first open \(welcome) to trust this server:\n"
            if let code = try? await QRCode.terminal(for: welcome) { text += code }
        }
        return text
    }
}
