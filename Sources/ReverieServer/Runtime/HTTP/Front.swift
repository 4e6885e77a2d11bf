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
    static func internalPath(of path: String, dataDirectory: String) -> String? {
        let root = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        let file = URL(fileURLWithPath: path).standardizedFileURL.path
        guard file.hasPrefix(root + "/") else { return nil }
        let relative = String(file.dropFirst(root.count + 1))
        guard let encoded = relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%;"))) else { return nil }
        return filesPrefix + encoded
    }
}
