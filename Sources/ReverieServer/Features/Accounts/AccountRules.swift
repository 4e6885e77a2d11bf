import Vapor

/// What a username and a password must be, and how a password becomes bcrypt input.
enum AccountRules {
    static let minimumPasswordLength = 8
    static let maximumPasswordLength = 1024
    static let maximumUsernameLength = 64

    /// Lowercased, trimmed username, or an `AccountError` saying what is wrong.
    static func normalizedUsername(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !name.isEmpty else {
            throw AccountError.emptyUsername
        }
        guard name.count <= maximumUsernameLength else {
            throw AccountError.usernameTooLong(limit: maximumUsernameLength)
        }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw AccountError.usernameCharacters
        }
        return name
    }

    /// Checks a new password's length.
    static func validateNewPassword(_ password: String) throws {
        guard password.count >= minimumPasswordLength else {
            throw AccountError.passwordTooShort(minimum: minimumPasswordLength)
        }
        guard password.count <= maximumPasswordLength else {
            throw AccountError.passwordTooLong(limit: maximumPasswordLength)
        }
    }

    /// bcrypt reads only the first 72 bytes; longer passwords are reduced to their SHA-256 first so
    /// every character counts.
    static func bcryptInput(_ password: String) -> String {
        let bytes = Array(password.utf8)
        guard bytes.count > 72 else { return password }
        return "sha256:" + Data(SHA256.hash(data: bytes)).base64EncodedString()
    }
}
