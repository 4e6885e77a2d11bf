import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An address the guarded HTTP client may connect to, and the rule for which ones are private.
///
/// Outside fetches (LibriVox, feeds, articles, radio) go only to public addresses unless the owner
/// allows private ones: a URL a person gives must not reach the server's own services, the LAN,
/// or a cloud's metadata endpoint. The rule is checked on the addresses the name resolves to, and
/// the connection is made to the address that was checked, so a name cannot change in between.
struct OutsideAddress: Sendable, Equatable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses `203.0.113.9` or `2001:db8::1` (no names).
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    var isIPv4: Bool { bytes.count == 4 }

    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = isIPv4 ? AF_INET : AF_INET6
        return copy.withUnsafeMutableBytes { raw in
            guard inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Loopback, private, link-local, shared (carrier NAT), multicast, reserved or unspecified: not
    /// somewhere on the public internet. IPv4 inside IPv6 (mapped, compatible, NAT64) is judged as
    /// the IPv4 address it carries.
    var isPrivate: Bool {
        if isIPv4 { return Self.privateIPv4(bytes) }
        let b = bytes
        let zeroPrefix = b[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && b[10] == 0xFF && b[11] == 0xFF { return Self.privateIPv4(Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if zeroPrefix && b[10] == 0 && b[11] == 0 { return true }                                       // ::, ::1, ::a.b.c.d
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.privateIPv4(Array(b[12..<16]))                                                  // 64:ff9b::/96
        }
        if b[0] & 0xFE == 0xFC { return true }                    // fc00::/7 unique local
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return true }    // fe80::/10 link-local
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return true }    // fec0::/10 old site-local
        if b[0] == 0xFF { return true }                           // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return true }  // 2001:db8::/32 documentation
        return false
    }

    static func privateIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true
        case (100, 64...127): return true            // shared address space (carrier NAT)
        case (169, 254): return true                 // link-local, cloud metadata
        case (172, 16...31): return true
        case (192, 168): return true
        case (192, 0) where b[2] == 0 || b[2] == 2: return true   // IETF protocol, TEST-NET-1
        case (198, 18...19): return true             // benchmarking
        case (198, 51) where b[2] == 100: return true // TEST-NET-2
        case (203, 0) where b[2] == 113: return true  // TEST-NET-3
        case (224...255, _): return true             // multicast, reserved, broadcast
        default: return false
        }
    }

    /// The addresses a host name resolves to (the system resolver, off the event loops, on a thread
    /// of its own: a slow resolver must not hold one of the few threads Swift's tasks run on).
    static func resolve(_ host: String) async throws -> [OutsideAddress] {
        if let literal = OutsideAddress(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))) { return [literal] }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var hints = addrinfo()
                hints.ai_family = AF_UNSPEC
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(host, nil, &hints, &list)
                guard status == 0, let first = list else {
                    continuation.resume(throwing: OutsideFetchError.unresolvable(host))
                    return
                }
                defer { freeaddrinfo(first) }
                var found: [OutsideAddress] = []
                var node: UnsafeMutablePointer<addrinfo>? = first
                while let entry = node {
                    if let address = entry.pointee.ai_addr {
                        if entry.pointee.ai_family == AF_INET {
                            let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                            if let parsed = withUnsafeBytes(of: v4, { OutsideAddress(bytes: Array($0)) }) { found.append(parsed) }
                        } else if entry.pointee.ai_family == AF_INET6 {
                            let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                            if let parsed = withUnsafeBytes(of: v6, { OutsideAddress(bytes: Array($0)) }) { found.append(parsed) }
                        }
                    }
                    node = entry.pointee.ai_next
                }
                if found.isEmpty { continuation.resume(throwing: OutsideFetchError.unresolvable(host)) }
                else { continuation.resume(returning: found) }
            }
        }
    }
}
