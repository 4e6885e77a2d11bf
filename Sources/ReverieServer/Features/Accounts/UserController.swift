import ReverieAPI
import Vapor

/// The owner's account management: list, add and remove people.
struct UserController: RouteCollection {
    let users: Store<any UserRepository>
    let hashing: PasswordHashing
    /// What removing a person also clears: their files and renders.
    let removal: AccountRemoval

    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("api", "users")
        users.get(use: list)
        users.post(use: create)
        users.delete(":userID", use: remove)
        users.put(":userID", "password", use: setTemporaryPassword)
    }

    func list(req: Request) async throws -> [UserInfo] {
        try req.owner("manages accounts")
        return try await users.on(req).all().map { $0.info() }
    }

    func create(req: Request) async throws -> Response {
        try req.owner("manages accounts")
        let credentials = try req.content.decode(Credentials.self)
        let user = try await AccountService(users: users.on(req), hasher: hashing).createUser(username: credentials.username, password: credentials.password, owner: false)
        let response = Response(status: .created)
        try response.content.encode(user.info())
        return response
    }

    func remove(req: Request) async throws -> HTTPStatus {
        let owner = try req.owner("manages accounts")
        let id = try req.uuidParameter("userID", naming: "user")
        guard id != owner.id else {
            throw APIError(.conflict, code: "cannot_remove_self", "The owner cannot remove their own account.")
        }
        guard try await users.on(req).find(id: id) != nil else { throw APIError.notFound("user") }
        try await removal.removeEverything(of: id, req)
        return .noContent
    }

    /// Gives someone a temporary password (they forgot theirs): their sessions and tokens are
    /// signed out, and at their next sign-in they choose a new one before anything else.
    func setTemporaryPassword(req: Request) async throws -> UserInfo {
        let owner = try req.owner("manages accounts")
        let id = try req.uuidParameter("userID", naming: "user")
        let body = try req.content.decode(TemporaryPassword.self)
        guard id != owner.id else {
            throw APIError(.conflict, code: "own_password",
                           "Change your own password in Settings, with your current one.")
        }
        guard let user = try await users.on(req).find(id: id) else { throw APIError.notFound("user") }
        return try await AccountService(users: users.on(req), hasher: hashing).setPassword(of: user, to: body.password, temporary: true).info()
    }

}
