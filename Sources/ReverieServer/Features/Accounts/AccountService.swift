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
    public func createUser(username rawUsername: String, password: String, owner: Bool? = nil) async throws -> UserRecord {
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
    public func verify(username rawUsername: String, password: String) async throws -> UserRecord? {
        let username = rawUsername.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let input = AccountRules.bcryptInput(password)
        guard let user = try await users.find(username: username) else {
            _ = try await hasher.verify(input, hasher.decoyHash)
            return nil
        }
        return try await hasher.verify(input, user.passwordHash) ? user : nil
    }

    /// Changes a person's own password. The current password must be right; the new one must
    /// be valid and different. Every other session and token of the account is revoked; the one
    /// the change came with (`keeping`) stays signed in.
    ///
    /// - Returns: the account as it now is.
    public func changePassword(of userID: UUID, current: String, new: String, keeping tokenID: UUID) async throws -> UserRecord {
        guard let user = try await users.find(id: userID) else {
            throw AccountError.accountGone
        }
        guard try await hasher.verify(AccountRules.bcryptInput(current), user.passwordHash) else {
            throw AccountError.wrongPassword
        }
        try AccountRules.validateNewPassword(new)
        guard new != current else {
            throw AccountError.samePassword
        }
        return try await replacePassword(of: user, with: new, mustChange: false, keeping: tokenID)
    }

    /// Sets someone's password without knowing the old one (the owner's temporary password, or
    /// `reverie user set-password`). Every session and token of the account is revoked.
    ///
    /// - Parameter temporary: the person must choose a new password at their next sign-in.
    public func setPassword(of user: UserRecord, to password: String, temporary: Bool) async throws -> UserRecord {
        try AccountRules.validateNewPassword(password)
        return try await replacePassword(of: user, with: password, mustChange: temporary, keeping: nil)
    }

    /// `setPassword(of:to:temporary:)` for the account with this username (as typed: any case,
    /// spaces around it); `AccountError.noSuchAccount` when there is none.
    public func setPassword(username rawUsername: String, to password: String, temporary: Bool) async throws -> UserRecord {
        let username = rawUsername.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let user = try await users.find(username: username) else {
            throw AccountError.noSuchAccount(username)
        }
        return try await setPassword(of: user, to: password, temporary: temporary)
    }

    private func replacePassword(of user: UserRecord, with password: String, mustChange: Bool, keeping tokenID: UUID?) async throws -> UserRecord {
        let hash = try await hasher.hash(AccountRules.bcryptInput(password))
        guard try await users.replacePassword(of: user.id, hash: hash, mustChange: mustChange, keeping: tokenID) else {
            throw AccountError.noSuchAccount(user.username)
        }
        var changed = user
        changed.passwordHash = hash
        changed.mustChangePassword = mustChange
        return changed
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
