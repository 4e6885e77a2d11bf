import ReverieAPI
import Vapor

/// The owner's account management: list, add and remove people.
struct UserController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("api", "users")
        users.get(use: list)
        users.post(use: create)
        users.delete(":userID", use: remove)
    }

    func list(req: Request) async throws -> [UserInfo] {
        try requireOwner(req)
        return try await req.repositories.users.all().map { try $0.info() }
    }

    func create(req: Request) async throws -> Response {
        try requireOwner(req)
        let credentials = try req.content.decode(Credentials.self)
        let user = try await req.accounts.createUser(username: credentials.username, password: credentials.password, owner: false)
        let response = Response(status: .created)
        try response.content.encode(try user.info())
        return response
    }

    func remove(req: Request) async throws -> HTTPStatus {
        let owner = try requireOwner(req)
        let id = try req.uuidParameter("userID", naming: "user")
        guard id != owner.id else {
            throw APIError(.conflict, code: "cannot_remove_self", "The owner cannot remove their own account.")
        }
        guard try await req.repositories.users.find(id: id) != nil else { throw APIError.notFound("user") }
        try await req.repositories.users.delete(id: id)
        return .noContent
    }

    @discardableResult
    private func requireOwner(_ req: Request) throws -> AuthenticatedUser {
        let user = try req.user
        guard user.isOwner else {
            throw APIError(.forbidden, code: "owner_only", "Only the owner of this server manages accounts.")
        }
        return user
    }
}
