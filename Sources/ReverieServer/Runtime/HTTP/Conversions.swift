import ReverieAPI
import Vapor

extension UserInfo: Content {}
extension SessionInfo: Content {}
extension SetupStatus: Content {}
extension HealthResponse: Content {}
extension TokenInfo: Content {}
extension CreatedToken: Content {}
extension UserSettings: Content {}

extension UserRecord {
    /// The API view of the account.
    func info() -> UserInfo {
        UserInfo(id: id, username: username, isOwner: isOwner, createdAt: createdAt ?? Date(timeIntervalSince1970: 0),
                 mustChangePassword: mustChangePassword, plan: Plan(rawValue: plan) ?? .free)
    }
}

extension AuthTokenRecord {
    /// The API view of a personal token (never its secret).
    func info() -> TokenInfo {
        TokenInfo(id: id, name: name, prefix: prefix, createdAt: createdAt ?? Date(timeIntervalSince1970: 0), lastUsedAt: lastUsedAt)
    }
}

extension Request {
    /// A UUID path parameter, or 404 when it is not one (an unreadable id names nothing).
    func uuidParameter(_ name: String, naming what: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else { throw APIError.notFound(what) }
        return id
    }
}

/// Dates in requests: ISO 8601 with or without fractional seconds (browsers send
/// `2026-11-22T21:30:00.123Z` from `toISOString()`).
enum ISO8601Dates {
    static func decode(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not an ISO 8601 date like 2026-11-22T21:30:00Z.")
    }
}
