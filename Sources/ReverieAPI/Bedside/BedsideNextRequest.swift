import Foundation

/// `POST /api/bedside/next`: which kind to pick a random piece of.
public struct BedsideNextRequest: Codable, Sendable, Equatable {
    public var kind: String

    public init(kind: String) {
        self.kind = kind
    }
}
