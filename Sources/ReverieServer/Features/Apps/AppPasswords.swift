import Foundation
import NIOConcurrencyHelpers
import Vapor

/// App passwords: made here, shown once, kept as a hash to sign in by and sealed with the
/// server's key (`<data>/keys/apps.key`, made on first use, kept by backups, readable by the server's user only), so
/// Subsonic's token sign-in (an MD5 of the password and a salt) can be checked.
///
/// A password is five groups of five letters and digits (`k3h9q-…`): about 124 bits, typed on a
/// phone without telling 0 from O or 1 from l (neither is used).
struct AppPasswords: Sendable {
    /// 31 letters and digits that cannot be mistaken for one another.
    static let alphabet = Array("abcdefghijkmnpqrstuvwxyz2345679")
    let keyFile: URL
    private let key = NIOLockedValueBox<Data?>(nil)

    init(dataDirectory: String) {
        keyFile = URL(fileURLWithPath: dataDirectory, isDirectory: true).appendingPathComponent("keys/apps.key")
    }

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<5).map { _ in String((0..<5).map { _ in alphabet.randomElement(using: &generator)! }) }.joined(separator: "-")
    }

    /// A random token for a login flow's addresses (32 bytes, base64url).
    static func token() -> String {
        String(TokenSecret.generate().dropFirst(TokenSecret.marker.count))
    }

    /// The part of a password shown in lists.
    static func prefix(of secret: String) -> String { String(secret.prefix(5)) }

    /// `secret` sealed with the server's key, as base64.
    func seal(_ secret: String) throws -> String {
        let box = try AES.GCM.seal(Data(secret.utf8), using: try serverKey())
        guard let combined = box.combined else { throw Abort(.internalServerError, reason: "The app password could not be sealed.") }
        return combined.base64EncodedString()
    }

    /// The password `sealed` holds; nil when it was sealed under another key (a data directory
    /// moved without its `apps.key`) or is damaged.
    func open(_ sealed: String) -> String? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let key = try? serverKey(), let plain = try? AES.GCM.open(box, using: key) else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    /// The key, read from its file or made there (32 random bytes, mode 0600) the first time.
    private func serverKey() throws -> SymmetricKey {
        SymmetricKey(data: try keyBytes())
    }

    private func keyBytes() throws -> Data {
        try key.withLockedValue { key in
            if let key { return key }
            let manager = FileManager.default
            if let bytes = try? Data(contentsOf: keyFile), bytes.count == 32 {
                key = bytes
                return bytes
            }
            try manager.createDirectory(at: keyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            let made = SymmetricKey(size: .bits256)
            let bytes = made.withUnsafeBytes { Data($0) }
            // Written aside and moved in, so another server starting on the same directory reads a
            // whole key or none; if it made one first, that one is kept.
            let aside = keyFile.appendingPathExtension("\(UUID().uuidString).tmp")
            guard manager.createFile(atPath: aside.path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw Abort(.internalServerError, reason: "Reverie could not write \(keyFile.path).")
            }
            defer { try? manager.removeItem(at: aside) }
            do {
                try manager.linkItem(at: aside, to: keyFile)
                key = bytes
            } catch {
                guard let existing = try? Data(contentsOf: keyFile), existing.count == 32 else {
                    throw Abort(.internalServerError, reason: "Reverie could not keep its key for app passwords in \(keyFile.path).")
                }
                key = existing
            }
            return key!
        }
    }
}
