import Foundation

/// Username and password, as sent to `POST /api/setup`, `POST /api/auth/login` and `POST /api/users`.
public struct Credentials: Codable, Sendable, Equatable {
    public var username: String
    public var password: String
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}
