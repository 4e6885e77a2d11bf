import Foundation

/// `PUT /api/users/{userID}/password`: the owner gives someone a temporary password.
public struct TemporaryPassword: Codable, Sendable, Equatable {
    public var password: String
    public init(password: String) { self.password = password }
}
