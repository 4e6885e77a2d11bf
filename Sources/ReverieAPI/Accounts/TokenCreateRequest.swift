import Foundation

/// `POST /api/tokens`: a name to recognise the token by later.
public struct TokenCreateRequest: Codable, Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}
