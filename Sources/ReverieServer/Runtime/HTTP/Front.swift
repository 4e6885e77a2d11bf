import Crypto
import Foundation
import Vapor

/// The production front Reverie may sit behind (deploy/nginx, `REVERIE_FRONT`): the addresses it
/// connects from. A request from one of them is the front's, so
/// - the client's address is the last `X-Forwarded-For` entry (the front appends the address it
///   saw), which sign-in throttling counts; from anyone else that header is ignored;
/// - files are sent by the front, so their bytes never pass through this server: the front reads
///   them from the data directory and answers Range itself. With a media key (the front's
///   `secure_link` secret, `REVERIE_FRONT_MEDIA_KEY_FILE`) a media request is answered with a
///   redirect to a signed address the front checks and serves alone, so the player's further
///   Range reads never reach Reverie; without one, or for a type the front has no place for, with
///   an empty answer naming the file (`X-Accel-Redirect`). Benchmarks/front.py measures both.
public struct FrontSettings: Sendable, Equatable {
    /// The front's addresses, normalised (`127.0.0.1`, `::1`); empty without a front.
    public let addresses: [String]
    /// The secret the front checks signed media addresses with; nil: files go by X-Accel-Redirect.
    public let mediaKey: String?

    /// Where the front serves the data directory from, internally (no client can ask for it).
    public static let filesPrefix = "/_reverie_files/"
    /// Where the front serves signed media addresses: `/_media/<type>/<path>?e=<expiry>&s=<signature>`.
    public static let mediaPrefix = "/_media/"
    /// A signed address is good for six to seven hours (a night's listening, and a paused book
    /// taken up again the same evening); it is the same address for an hour, then the next one.
    static let linkHours = 7

    /// The media types the front has a place for (deploy/nginx's `/_media/<slug>/` locations), by
    /// the part of the address that names them.
    static let mediaSlugs: [String: String] = [
        "audio/mpeg": "mpeg", "audio/mp4": "mp4", "audio/flac": "flac", "audio/wav": "wav",
        "audio/ogg": "ogg", "audio/aac": "aac", "image/jpeg": "jpeg",
    ]

    public init(addresses: [String] = [], mediaKey: String? = nil) {
        self.addresses = addresses.compactMap(IPAddressText.normalized)
        self.mediaKey = mediaKey
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
        relativeBytes(of: path, dataDirectory: dataDirectory).map { encoded(filesPrefix, $0) }
    }

    /// The signed address the front serves `path` (a file under `dataDirectory` of media type
    /// `type`) at until its expiry, the hour after next's end from `now`: nginx's `secure_link`
    /// with `secure_link_md5 "$secure_link_expires$uri <key>"`, the MD5 in base64url without
    /// padding. Nil without a key, for a type the front has no place for, or a file elsewhere.
    func signedAddress(of path: String, type: String, dataDirectory: String, now: Date) -> String? {
        guard let mediaKey, let slug = Self.mediaSlugs[type.split(separator: ";")[0].trimmingCharacters(in: .whitespaces)],
              let relative = Self.relativeBytes(of: path, dataDirectory: dataDirectory) else { return nil }
        let prefix = Self.mediaPrefix + slug + "/"
        let expires = (Int(now.timeIntervalSince1970) / 3600 + Self.linkHours) * 3600
        // Over the address as nginx decodes it ($uri): the path's own bytes.
        var signed = [UInt8]("\(expires)".utf8) + Array(prefix.utf8)
        signed += relative
        signed += Array(" \(mediaKey)".utf8)
        let signature = Data(Insecure.MD5.hash(data: signed)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return Self.encoded(prefix, relative) + "?e=\(expires)&s=\(signature)"
    }

    /// The bytes of `path` under `dataDirectory`, checked to stay inside it; nil for a file elsewhere.
    private static func relativeBytes(of path: String, dataDirectory: String) -> Substring.UTF8View? {
        var root = dataDirectory
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        guard path.hasPrefix(root + "/") else { return nil }
        let relative = Substring(path).utf8.dropFirst(root.utf8.count + 1)
        // No way up or sideways out of the data directory, and nothing empty.
        let parts = relative.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) else {
            return nil
        }
        return relative
    }

    /// `prefix` and `relative` percent-encoded for an address.
    private static func encoded(_ prefix: String, _ relative: Substring.UTF8View) -> String {
        var encoded = [UInt8](prefix.utf8)
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
