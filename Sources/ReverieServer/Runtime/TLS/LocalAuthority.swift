import Crypto
import Foundation
import NIOCore
import SwiftASN1
import X509

/// The names and addresses a server certificate answers to: the machine's name, that name under
/// `.local` (what a phone on the same network resolves by mDNS), `localhost`, each interface
/// address, and any names the owner adds (`REVERIE_TLS_NAMES`).
public struct ServerNames: Sendable, Equatable, CustomStringConvertible {
    /// Lower-cased, sorted, each once.
    public let dnsNames: [String]
    /// In their usual text form (`192.168.1.20`, `fe80::1`), sorted, each once.
    public let ipAddresses: [String]

    public init(dnsNames: [String], ipAddresses: [String]) {
        self.dnsNames = Array(Set(dnsNames.map { $0.lowercased() }.filter { !$0.isEmpty })).sorted()
        self.ipAddresses = Array(Set(ipAddresses.compactMap(IPAddressText.normalized))).sorted()
    }

    /// The names of a machine called `hostname` with `addresses`, and `extra` names.
    public static func machine(hostname: String, addresses: [String], extra: [String] = []) -> ServerNames {
        let short = hostname.split(separator: ".").first.map(String.init) ?? hostname
        var names = ["localhost"] + extra
        if !short.isEmpty, short != "localhost" { names += [hostname, "\(short).local"] }
        return ServerNames(dnsNames: names, ipAddresses: addresses + ["127.0.0.1", "::1"])
    }

    /// This machine's names and addresses now.
    public static func current(extra: [String] = []) -> ServerNames {
        var buffer = [CChar](repeating: 0, count: 256)
        let hostname = gethostname(&buffer, buffer.count) == 0 ? cText(buffer) : ""
        let addresses = (try? System.enumerateDevices())?.compactMap { device -> String? in
            guard let address = device.address else { return nil }
            return address.ipAddress
        } ?? []
        return machine(hostname: hostname, addresses: addresses, extra: extra)
    }

    public var description: String { (dnsNames + ipAddresses).joined(separator: ", ") }

    /// Every name and address, as a certificate's subjectAltName lists them.
    var generalNames: [GeneralName] {
        dnsNames.map { GeneralName.dnsName($0) }
            + ipAddresses.compactMap { IPAddressText.bytes($0).map { GeneralName.ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) } }
    }
}

/// A certificate authority of this server's own, in `<data>/tls/`, for HTTPS at home: a phone
/// that trusts it (as `/welcome` explains) opens Reverie as a secure context, so it installs,
/// starts offline and keeps the screen on. The authority's private key never leaves the server:
/// no route serves it, and its file is readable by the server's user alone.
///
/// The server certificates it issues meet Apple's rules for a private authority's certificates
/// (https://support.apple.com/103769): the names in subjectAltName, the serverAuth extended key
/// usage, ECDSA P-256 with SHA-256, and at most 825 days (these last `serverValidityDays`).
public struct LocalAuthority: Sendable {
    /// A server certificate's life. Apple's limit is 825 days; 397 is also every browser's limit
    /// for public certificates, so no platform's rule is near.
    public static let serverValidityDays = 397
    /// The authority's own life.
    public static let authorityValidityDays = 3650
    /// A server certificate is issued again this long before it expires.
    public static let renewalDays = 30
    /// This long before the authority ends, its successor is made: `/welcome` offers it to every
    /// device, and the log says so.
    public static let authorityRenewalDays = 365
    /// This long before the authority ends, the server moves to its successor
    /// (`handOver(in:now:)`): the devices have had the eleven months before to install it.
    public static let handoverDays = 30

    /// Names an authority may sign whatever the machine is called: `localhost` and the names no
    /// public site can have (mDNS's `.local`, RFC 8375's `home.arpa`, RFC 6761's `.test`, and the
    /// `.lan` and `.internal` that home routers and ICANN keep for private use). A name in
    /// `nameConstraints` covers itself and every name under it.
    public static let homeDomains = ["localhost", "local", "home.arpa", "lan", "internal", "test"]
    /// Addresses an authority may sign whatever the machine's are: loopback, the private ranges,
    /// link-local, and the shared range Tailscale and carriers use (address, prefix length).
    public static let homeRanges: [(address: String, prefix: Int)] = [
        ("127.0.0.0", 8), ("10.0.0.0", 8), ("172.16.0.0", 12), ("192.168.0.0", 16), ("169.254.0.0", 16), ("100.64.0.0", 10),
        ("::1", 128), ("fc00::", 7), ("fe80::", 10),
    ]

    public let directory: String
    /// The authority's certificate, the one a device installs.
    public let certificate: Certificate
    private let key: Certificate.PrivateKey

    /// The files in `directory`.
    public enum File: String, Sendable {
        case authorityKey = "ca.key", authorityCertificate = "ca.crt"
        case serverKey = "server.key", serverCertificate = "server.crt"
        /// The successor, from `authorityRenewalDays` before the authority ends to the handover.
        case nextKey = "ca-next.key", nextCertificate = "ca-next.crt"
    }

    /// The authority in `directory`, made there on first use for `names` (the machine's now).
    ///
    /// A new authority is name-constrained (critical `nameConstraints`): it can sign only the home
    /// names and addresses (`homeDomains`, `homeRanges`) and the dotted names it was made for
    /// (`constraints(for:)`). If its key ever leaked, it could not stand in for any site a phone
    /// visits.
    public static func openOrCreate(in directory: String, names: @autoclosure () -> ServerNames = ServerNames.current(),
                                    now: Date = Date()) throws -> LocalAuthority {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if let kept = try open(.authorityKey, .authorityCertificate, in: directory) { return kept }
        let names = names()
        return try make(.authorityKey, .authorityCertificate, in: directory, names: names, constraints: constraints(for: names), now: now)
    }

    /// The authority whose files are `keyFile` and `certificateFile`; nil when they are not there.
    private static func open(_ keyFile: File, _ certificateFile: File, in directory: String) throws -> LocalAuthority? {
        let keyPath = path(keyFile, in: directory), certificatePath = path(certificateFile, in: directory)
        guard let keyPEM = try? String(contentsOfFile: keyPath, encoding: .utf8),
              let certificatePEM = try? String(contentsOfFile: certificatePath, encoding: .utf8) else { return nil }
        let key = try Certificate.PrivateKey(pemEncoded: keyPEM)
        let certificate = try Certificate(pemEncoded: certificatePEM)
        guard certificate.publicKey == key.publicKey else {
            throw TLSSetupError("\(certificatePath) does not belong to the key in \(keyPath); move both away to make a new authority")
        }
        return LocalAuthority(directory: directory, certificate: certificate, key: key)
    }

    /// A new authority for `names`, limited by `constraints`, written to `keyFile` and `certificateFile`.
    private static func make(_ keyFile: File, _ certificateFile: File, in directory: String, names: ServerNames,
                             constraints: NameConstraints, now: Date) throws -> LocalAuthority {
        let keyPath = path(keyFile, in: directory), certificatePath = path(certificateFile, in: directory)
        let key = P256.Signing.PrivateKey()
        // The year it was made tells it from the one it follows (a device holds both for a while).
        let name = try DistinguishedName {
            CommonName("Reverie local authority (\(names.dnsNames.first { $0 != "localhost" } ?? "this server"), \(year(of: now)))")
            OrganizationName("Reverie")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(Double(authorityValidityDays) * 86_400),
            issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                Critical(constraints)
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        try write(key.pemRepresentation, to: keyPath, secret: true)
        try write(try certificate.serializeAsPEM().pemString, to: certificatePath, secret: false)
        return LocalAuthority(directory: directory, certificate: certificate, key: Certificate.PrivateKey(key))
    }

    /// A new authority in `directory` for `names`: the files of the one there (its key and
    /// certificate, and the server certificate it signed) are renamed with today's date, kept
    /// for the owner, and a new one is made.
    public static func replace(in directory: String, names: ServerNames, now: Date = Date()) throws -> LocalAuthority {
        let stamp = ISO8601DateFormatter.string(from: now, timeZone: .init(identifier: "UTC")!, formatOptions: [.withFullDate])
            .replacingOccurrences(of: "-", with: "")
        try moveAside([.authorityKey, .authorityCertificate, .serverKey, .serverCertificate, .nextKey, .nextCertificate],
                      in: directory, as: "replaced-\(stamp)")
        return try openOrCreate(in: directory, names: names, now: now)
    }

    /// The authority that follows this one, made once it ends within `authorityRenewalDays`
    /// (kept in `ca-next.*` until the handover): limited to the same names, or, when this one was
    /// made before name constraints, to the home's and `names`. Nil while this one has longer to go.
    public func successor(names: @autoclosure () -> ServerNames, now: Date = Date()) throws -> LocalAuthority? {
        guard endsSoon(now: now) != nil else { return nil }
        if let kept = try Self.open(.nextKey, .nextCertificate, in: directory) { return kept }
        let names = names()
        let constraints = (try? certificate.extensions.nameConstraints) ?? Self.constraints(for: names)
        return try Self.make(.nextKey, .nextCertificate, in: directory, names: names, constraints: constraints, now: now)
    }

    /// Moves the authority in `directory` over to its successor when it ends within
    /// `handoverDays` (or has ended) and one was made: the old files (and the server certificate
    /// it signed) are renamed `….retired-<date>`, kept for the owner, and the successor's take
    /// their names. The authority there afterwards, or nil when nothing was handed over.
    public static func handOver(in directory: String, now: Date = Date()) throws -> LocalAuthority? {
        guard let current = try open(.authorityKey, .authorityCertificate, in: directory),
              current.certificate.notValidAfter.timeIntervalSince(now) < Double(handoverDays) * 86_400,
              let next = try open(.nextKey, .nextCertificate, in: directory) else { return nil }
        let stamp = ISO8601DateFormatter.string(from: now, timeZone: .init(identifier: "UTC")!, formatOptions: [.withFullDate])
            .replacingOccurrences(of: "-", with: "")
        try moveAside([.authorityKey, .authorityCertificate, .serverKey, .serverCertificate], in: directory, as: "retired-\(stamp)")
        for (from, to) in [(File.nextKey, File.authorityKey), (.nextCertificate, .authorityCertificate)] {
            guard rename(path(from, in: directory), path(to, in: directory)) == 0 else {
                throw TLSSetupError("could not move \(path(from, in: directory)) to \(path(to, in: directory)) (error \(errno))")
            }
        }
        return LocalAuthority(directory: directory, certificate: next.certificate, key: next.key)
    }

    /// Renames each of `files` there to `<name>.<suffix>` (then `-2`, `-3` when taken).
    private static func moveAside(_ files: [File], in directory: String, as suffix: String) throws {
        for file in files {
            let path = path(file, in: directory)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            var aside = "\(path).\(suffix)"
            var count = 1
            while FileManager.default.fileExists(atPath: aside) {
                count += 1
                aside = "\(path).\(suffix)-\(count)"
            }
            guard rename(path, aside) == 0 else { throw TLSSetupError("could not move \(path) aside (error \(errno))") }
        }
    }

    /// The authority's certificate in DER (the `.crt` a device downloads).
    public var certificateDER: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }

    /// SHA-256 of the authority's certificate, as a person compares it: `AB:CD:…`.
    public var fingerprint: String {
        get throws {
            SHA256.hash(data: try certificateDER).map { String(format: "%02X", $0) }.joined(separator: ":")
        }
    }

    /// A new server certificate for `names`, signed by the authority, with its own key.
    public func issue(for names: ServerNames, now: Date = Date()) throws -> ServerCertificate {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let subject = try DistinguishedName {
            CommonName(names.dnsNames.first { $0 != "localhost" } ?? "localhost")
            OrganizationName("Reverie")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(Double(Self.serverValidityDays) * 86_400),
            issuer: certificate.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.generalNames)
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: try authorityKeyIdentifier())
            },
            issuerPrivateKey: self.key)
        return ServerCertificate(certificate: certificate, keyPEM: key.pemRepresentation,
                                 authorityPEM: try self.certificate.serializeAsPEM().pemString)
    }

    /// What an authority made for `names` may sign: the home domains and ranges, and each of
    /// those names with a dot that is not under a home domain (the owner's own domain). Left out:
    /// a single-label name (the machine's bare `kitchen`), which as a constraint would also permit
    /// a public top-level domain of that name, and a public address (an IPv6 one changes with the
    /// provider's prefix and its privacy rotation; a public server has a public certificate).
    public static func constraints(for names: ServerNames) -> NameConstraints {
        let domains = homeDomains + names.dnsNames.filter { name in name.contains(".") && !homeDomains.contains { within(name, $0) } }
        let ranges = homeRanges.compactMap { range($0.address, prefix: $0.prefix) }
        return NameConstraints(permittedDNSDomains: domains, permittedIPRanges: ranges.map { ASN1OctetString(contentBytes: ArraySlice($0)) })
    }

    /// The part of `names` this authority may sign, and the names a new authority could (in
    /// text): a certificate naming them would be refused by every client. A bare name (the
    /// machine's `kitchen`) and a public address are in neither: no name-constrained authority
    /// signs them, so they are simply left out. An authority made before name constraints (with
    /// none) signs every name.
    public func signable(_ names: ServerNames) -> (covered: ServerNames, outside: [String]) {
        guard let constraints = try? certificate.extensions.nameConstraints else { return (names, []) }
        let domains = Array(constraints.permittedDNSDomains), ranges = constraints.permittedIPRanges.map { Array($0.bytes) }
        let dns = names.dnsNames.filter { name in domains.isEmpty || domains.contains { Self.within(name, $0) } }
        let addresses = names.ipAddresses.filter { text in
            guard let bytes = IPAddressText.bytes(text) else { return false }
            return ranges.isEmpty || ranges.contains { Self.contains($0, bytes) }
        }
        let outside = names.dnsNames.filter { !dns.contains($0) && $0.contains(".") }
        return (ServerNames(dnsNames: dns, ipAddresses: addresses), outside)
    }

    /// When the authority ends within `authorityRenewalDays`: the day it ends.
    public func endsSoon(now: Date = Date()) -> Date? {
        certificate.notValidAfter.timeIntervalSince(now) < Double(Self.authorityRenewalDays) * 86_400 ? certificate.notValidAfter : nil
    }

    /// A name under a constraint's domain, as RFC 5280 matches them: the domain itself or a name
    /// ending in `.domain`.
    static func within(_ name: String, _ domain: String) -> Bool {
        let name = name.lowercased(), domain = domain.lowercased()
        return name == domain || name.hasSuffix("." + domain)
    }

    /// A range as `nameConstraints` holds it: the address then the mask, 8 or 32 bytes.
    static func range(_ address: String, prefix: Int) -> [UInt8]? {
        guard let bytes = IPAddressText.bytes(address) else { return nil }
        let mask = (0..<bytes.count).map { index -> UInt8 in
            let bits = min(8, max(0, prefix - index * 8))
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }
        return zip(bytes, mask).map { $0 & $1 } + mask
    }

    /// Whether `address` (4 or 16 bytes) lies in `range` (address and mask).
    static func contains(_ range: [UInt8], _ address: [UInt8]) -> Bool {
        guard range.count == address.count * 2 else { return false }
        return (0..<address.count).allSatisfy { address[$0] & range[address.count + $0] == range[$0] & range[address.count + $0] }
    }

    /// The server certificate in the directory when it still covers `names` and is not near its
    /// end; otherwise a new one, written there. `renewed` says which.
    /// Names the authority may not sign are left out (`signable`).
    public func serverCertificate(for names: ServerNames, now: Date = Date()) throws -> (ServerCertificate, renewed: Bool) {
        let names = signable(names).covered
        let certificatePath = Self.path(.serverCertificate, in: directory), keyPath = Self.path(.serverKey, in: directory)
        if let chainPEM = try? String(contentsOfFile: certificatePath, encoding: .utf8),
           let keyPEM = try? String(contentsOfFile: keyPath, encoding: .utf8),
           let first = try? PEMDocument.parseMultiple(pemString: chainPEM).first,
           let certificate = try? Certificate(pemDocument: first),
           !Self.needsRenewal(certificate, for: names, by: self.certificate, now: now) {
            return (ServerCertificate(certificate: certificate, keyPEM: keyPEM,
                                      authorityPEM: try self.certificate.serializeAsPEM().pemString), false)
        }
        let issued = try issue(for: names, now: now)
        try Self.write(issued.keyPEM, to: keyPath, secret: true)
        try Self.write(try issued.chainPEM, to: certificatePath, secret: false)
        return (issued, true)
    }

    /// Whether `certificate` must be issued again: it ends within `renewalDays`, or it does not
    /// name exactly `names`, or another authority signed it.
    public static func needsRenewal(_ certificate: Certificate, for names: ServerNames, by authority: Certificate, now: Date) -> Bool {
        if certificate.notValidAfter.timeIntervalSince(now) < Double(renewalDays) * 86_400 { return true }
        if certificate.issuer != authority.subject { return true }
        // Another authority of the same name (one made by `tls new-authority`) signed it.
        if let signer = try? certificate.extensions.authorityKeyIdentifier?.keyIdentifier,
           let own = try? authority.extensions.subjectKeyIdentifier?.keyIdentifier, signer != own { return true }
        guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return true }
        return Set(alternatives) != Set(names.generalNames)
    }

    /// The year (UTC) of `date`, as names and profiles say it.
    public static func year(of date: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.component(.year, from: date)
    }

    // MARK: - Files

    public static func path(_ file: File, in directory: String) -> String {
        (directory as NSString).appendingPathComponent(file.rawValue)
    }

    private func authorityKeyIdentifier() throws -> ArraySlice<UInt8> {
        if let identifier = try certificate.extensions.subjectKeyIdentifier { return identifier.keyIdentifier }
        return SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a key.
    private static func write(_ text: String, to path: String, secret: Bool) throws {
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: secret ? 0o600 : 0o644]),
              rename(temporary, path) == 0 else { throw TLSSetupError("could not write \(path) (error \(errno))") }
    }
}

/// A server certificate with its key and the authority that signed it.
public struct ServerCertificate: Sendable {
    public let certificate: Certificate
    public let keyPEM: String
    public let authorityPEM: String

    /// The certificate then the authority, as a TLS server sends them.
    public var chainPEM: String {
        get throws { try certificate.serializeAsPEM().pemString + "\n" + authorityPEM + "\n" }
    }
}

/// Something in the TLS setup that the owner has to put right.
public struct TLSSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// IP addresses as text and bytes.
enum IPAddressText {
    /// The address's usual form, or nil when `text` is not an address (a scope like `%eth0` is dropped).
    static func normalized(_ text: String) -> String? {
        guard let bytes = bytes(text) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let done = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return done == nil ? nil : cText(buffer)
    }

    /// 4 or 16 bytes, or nil.
    static func bytes(_ text: String) -> [UInt8]? {
        let bare = String(text.split(separator: "%").first ?? "")
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// A C string in `buffer` (up to its first NUL) as text.
private func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
