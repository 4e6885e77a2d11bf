import Vapor

/// Creating accounts and checking passwords: one place for the setup screen, the owner's user
/// management and `reverie user create`.
public struct AccountService: Sendable {
    let users: any UserRepository
    let hasher: PasswordHashing

    public init(users: any UserRepository, hasher: PasswordHashing) {
        self.users = users
        self.hasher = hasher
    }

    /// Creates an account after checking the username and password.
    ///
    /// - Parameter owner: `true` makes the owner; `nil` makes the owner only when no account exists yet.
    public func createUser(username rawUsername: String, password: String, owner: Bool? = nil) async throws -> UserModel {
        let username = try AccountRules.normalizedUsername(rawUsername)
        try AccountRules.validateNewPassword(password)
        let isOwner: Bool
        if let owner {
            isOwner = owner
        } else {
            isOwner = try await users.count() == 0
        }
        let hash = try await hasher.hash(AccountRules.bcryptInput(password))
        return try await users.create(username: username, passwordHash: hash, isOwner: isOwner)
    }

    /// The account when the password is right, else `nil`. Takes as long for an unknown username
    /// as for a wrong password, so timing does not reveal which accounts exist.
    public func verify(username rawUsername: String, password: String) async throws -> UserModel? {
        let username = rawUsername.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let input = AccountRules.bcryptInput(password)
        guard let user = try await users.find(username: username) else {
            _ = try await hasher.verify(input, hasher.decoyHash)
            return nil
        }
        return try await hasher.verify(input, user.passwordHash) ? user : nil
    }
}

/// bcrypt on the application's thread pool, with a decoy hash of the same cost for unknown users.
public struct PasswordHashing: Sendable {
    public let cost: Int
    let decoyHash: String
    private let threadPool: NIOThreadPool

    public init(cost: Int, threadPool: NIOThreadPool) throws {
        self.cost = cost
        self.threadPool = threadPool
        self.decoyHash = try Bcrypt.hash(TokenSecret.generate(), cost: cost)
    }

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await threadPool.runIfActive { try Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, _ hash: String) async throws -> Bool {
        try await threadPool.runIfActive { (try? Bcrypt.verify(password, created: hash)) ?? false }
    }
}
