import Foundation

/// What an account may use: Free, or Plus (premium themes and icons, and the paid features as
/// they come). This server is self-hosted, so nobody pays: the owner grants Plus.
public enum Plan: String, Codable, Sendable, CaseIterable {
    case free
    case plus
}
