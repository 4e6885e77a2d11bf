import ReverieAPI
import Vapor

extension UserInfo: Content {}
extension SessionInfo: Content {}
extension SetupStatus: Content {}
extension HealthResponse: Content {}
extension TokenInfo: Content {}
extension CreatedToken: Content {}
extension UserSettings: Content {}

extension UserModel {
    /// The API view of the account.
    func info() throws -> UserInfo {
        UserInfo(id: try requireID(), username: username, isOwner: isOwner, createdAt: createdAt ?? Date(timeIntervalSince1970: 0))
    }
}

extension AuthTokenModel {
    /// The API view of a personal token (never its secret).
    func info() throws -> TokenInfo {
        TokenInfo(id: try requireID(), name: name, prefix: prefix, createdAt: createdAt ?? Date(timeIntervalSince1970: 0), lastUsedAt: lastUsedAt)
    }
}

extension Request {
    /// A UUID path parameter, or 404 when it is not one (an unreadable id names nothing).
    func uuidParameter(_ name: String, naming what: String) throws -> UUID {
        guard let text = parameters.get(name), let id = UUID(uuidString: text) else { throw APIError.notFound(what) }
        return id
    }
}
