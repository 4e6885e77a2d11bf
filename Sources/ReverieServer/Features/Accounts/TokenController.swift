import ReverieAPI
import Vapor

/// Personal access tokens for the CLI and scripts: create, list, revoke.
struct TokenController: RouteCollection {
    let tokens: Store<any AuthTokenRepository>
    static let maximumNameLength = 100

    func boot(routes: any RoutesBuilder) throws {
        let tokens = routes.grouped("api", "tokens")
        tokens.get(use: list)
        tokens.post(use: create)
        tokens.delete(":tokenID", use: revoke)
    }

    func list(req: Request) async throws -> [TokenInfo] {
        try await tokens.on(req).personalTokens(ownedBy: req.user).map { $0.info() }
    }

    func create(req: Request) async throws -> Response {
        let user = try req.user
        let name = try req.content.decode(TokenCreateRequest.self).name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= Self.maximumNameLength else {
            throw APIError(.badRequest, code: "invalid_name", "Give the token a name of 1 to \(Self.maximumNameLength) characters.")
        }
        let secret = TokenSecret.generate()
        let token = try await tokens.on(req).create(
            for: user.id, kind: .personal, name: name, secretHash: TokenSecret.hash(secret),
            prefix: TokenSecret.prefix(of: secret), expiresAt: nil)
        let response = Response(status: .created)
        try response.content.encode(CreatedToken(token: token.info(), secret: secret))
        return response
    }

    func revoke(req: Request) async throws -> HTTPStatus {
        let id = try req.uuidParameter("tokenID", naming: "token")
        guard try await tokens.on(req).revokePersonalToken(id, ownedBy: req.user) else {
            throw APIError.notFound("token")
        }
        return .noContent
    }
}
