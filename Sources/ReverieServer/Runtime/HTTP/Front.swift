import Foundation
import Vapor

/// The production front Reverie may sit behind (deploy/nginx, `REVERIE_FRONT`): the addresses it
/// connects from. A request from one of them is the front's, so
/// - the client's address is the last `X-Forwarded-For` entry (the front appends the address it
///   saw), which sign-in throttling counts; from anyone else that header is ignored;
/// - files are handed to the front to send (`X-Accel-Redirect`), so their bytes never pass
///   through this server: the front reads them from the data directory and answers Range itself.
public struct FrontSettings: Sendable, Equatable {
    /// The front's addresses, normalised (`127.0.0.1`, `::1`); empty without a front.
    public let addresses: [String]

    /// Where the front serves the data directory from, internally (no client can ask for it).
    public static let filesPrefix = "/_reverie_files/"

    public init(addresses: [String] = []) {
        self.addresses = addresses.compactMap(IPAddressText.normalized)
    }

    /// Whether `request` came through the front.
    public func isFront(_ request: Request) -> Bool {
        guard !addresses.isEmpty, let peer = request.remoteAddress?.ipAddress,
              let normalised = IPAddressText.normalized(peer) else { return false }
        return addresses.contains(normalised)
    }

    /// The address of the client behind the request: the front's last `X-Forwarded-For` entry
    /// when it came through the front, else the connection's peer.
    public func clientAddress(of request: Request) -> String {
        let peer = request.remoteAddress?.ipAddress ?? "unknown"
        guard isFront(request),
              let forwarded = request.headers[.xForwardedFor].last?.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
              let address = IPAddressText.normalized(forwarded) else { return peer }
        return address
    }

    /// The front's internal address of `path`, a file under `dataDirectory`; nil for a file elsewhere.
    /// Plain byte work, no Foundation URLs or character sets: it runs for every Range request.
    static func internalPath(of path: String, dataDirectory: String) -> String? {
        var root = dataDirectory
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        guard path.hasPrefix(root + "/") else { return nil }
        let relative = path.utf8.dropFirst(root.utf8.count + 1)
        // No way up or sideways out of the data directory, and nothing empty.
        let parts = relative.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) else {
            return nil
        }
        var encoded = [UInt8](filesPrefix.utf8)
        encoded.reserveCapacity(encoded.count + relative.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in relative {
            if Self.unescaped[Int(byte)] {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// Bytes a path keeps as they are: letters, digits, `-._~`, `/` and the sub-delimiters nginx
    /// reads literally; everything else (space, `%`, `?`, `#`, `;`, non-ASCII) is percent-encoded.
    private static let unescaped: [Bool] = (0..<256).map { byte in
        guard byte < 128 else { return false }
        let scalar = Unicode.Scalar(UInt8(byte))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~/!$&'()*+,=:@".unicodeScalars.contains(scalar)
    }
}
