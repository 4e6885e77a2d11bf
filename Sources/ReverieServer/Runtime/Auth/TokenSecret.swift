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

    /// Hex SHA-256 of a secret: what is stored and looked up. A fast hash is right here: the
    /// secret is 32 random bytes, so there is nothing to guess, and every signed-in request pays
    /// for it (bcrypt is for passwords only).
    static func hash(_ secret: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(secret.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The part of a secret shown in token lists.
    static func prefix(of secret: String) -> String {
        String(secret.prefix(marker.count + 6))
    }
}
