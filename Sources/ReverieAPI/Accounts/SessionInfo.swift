import Foundation

/// The answer to a successful setup or login, and to `GET /api/auth/me`.
public struct SessionInfo: Codable, Sendable, Equatable {
    public var user: UserInfo
    public init(user: UserInfo) { self.user = user }
}
