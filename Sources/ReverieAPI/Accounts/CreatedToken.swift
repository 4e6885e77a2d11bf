import Foundation

/// `POST /api/tokens` answer: the token and, this once, its secret for `Authorization: Bearer`.
public struct CreatedToken: Codable, Sendable, Equatable {
    public var token: TokenInfo
    public var secret: String
    public init(token: TokenInfo, secret: String) {
        self.token = token
        self.secret = secret
    }
}
