import ReverieAPI
import Vapor

/// The owner's account management: list, add and remove people.
struct UserController: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let users = routes.grouped("api", "users")
        users.get(use: list)
        users.post(use: create)
        users.delete(":userID", use: remove)
        users.put(":userID", "password", use: setTemporaryPassword)
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
        try await Self.removeEverything(of: id, req.application, repositories: req.repositories)
        return .noContent
    }

    /// Gives someone a temporary password (they forgot theirs): their sessions and tokens are
    /// signed out, and at their next sign-in they choose a new one before anything else.
    func setTemporaryPassword(req: Request) async throws -> UserInfo {
        let owner = try requireOwner(req)
        let id = try req.uuidParameter("userID", naming: "user")
        let body = try req.content.decode(TemporaryPassword.self)
        guard id != owner.id else {
            throw APIError(.conflict, code: "own_password",
                           "Change your own password in Settings, with your current one.")
        }
        guard let user = try await req.repositories.users.find(id: id) else { throw APIError.notFound("user") }
        return try await req.accounts.setPassword(of: user, to: body.password, temporary: true).info()
    }

    /// Removes a person with every row they own and what was made from it: their renders' files
    /// unless someone else's render (or the meditation narration) uses the same cache entry.
    static func removeEverything(of id: UUID, _ app: Application, repositories: Repositories) async throws {
        let keys = try await repositories.speechRenders.cacheKeys(ownedBy: id)
        let media = try await repositories.library.all(ownedBy: id)
        try await repositories.users.delete(id: id)
        try await LibraryStore(app: app, repository: repositories.library).removeUnused(after: media)
        let kept = await app.meditationAudio.narrationKeys()
        for key in keys.subtracting(kept) where try await !repositories.speechRenders.isUsed(cacheKey: key) {
            await app.speech.service.remove(key)
        }
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
