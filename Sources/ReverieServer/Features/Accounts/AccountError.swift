/// Why an account operation was refused, for the web app (through `ErrorTable`) and for
/// `reverie user` (through the CLI's one mapping to exit codes) alike.
public enum AccountError: Error, Equatable, Sendable, CustomStringConvertible {
    case emptyUsername
    case usernameTooLong(limit: Int)
    case usernameCharacters
    case passwordTooShort(minimum: Int)
    case passwordTooLong(limit: Int)
    case usernameTaken(String)
    /// The account the request came with is gone.
    case accountGone
    case wrongPassword
    case samePassword
    case noSuchAccount(String)

    public var description: String {
        switch self {
        case .emptyUsername: "Choose a username."
        case let .usernameTooLong(limit): "A username has at most \(limit) characters."
        case .usernameCharacters: "Use letters, digits, '.', '_' or '-' in a username."
        case let .passwordTooShort(minimum): "A password needs at least \(minimum) characters."
        case let .passwordTooLong(limit): "A password has at most \(limit) characters."
        case let .usernameTaken(name): "The username '\(name)' is taken; choose another."
        case .accountGone: "Sign in first: this account no longer exists."
        case .wrongPassword: "Your current password is not right; type it again."
        case .samePassword: "Choose a password different from the current one."
        case let .noSuchAccount(name): "No account is named '\(name)'."
        }
    }
}
