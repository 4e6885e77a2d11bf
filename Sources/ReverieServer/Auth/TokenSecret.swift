import Vapor

/// Secrets for sessions and personal tokens: 32 random bytes, base64url, with a recognisable prefix.
enum TokenSecret {
    /// Every secret starts with this, so a leaked one is easy to spot in logs and scanners.
    static let marker = "rvr_"

    /// A new secret (about 47 characters).
    static func generate() -> String {
        let bytes = [UInt8].random(count: 32)
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return marker + base64
    }

    /// Hex SHA-256 of a secret: what is stored and looked up.
    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The part of a secret shown in token lists.
    static func prefix(of secret: String) -> String {
        String(secret.prefix(marker.count + 6))
    }
}
