import ArgumentParser
import Foundation
import ReverieServer

/// `reverie user …`: accounts from the shell.
struct User: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage accounts.",
        subcommands: [Create.self, SetPassword.self]
    )

    /// Reads the password (asked without echo, or standard input's first line), opens the
    /// server's storage and hands over its accounts; a refusal (`AccountError`) becomes the message
    /// the command fails with.
    static func withAccounts(storage: StorageOptions, passwordFromStandardInput: Bool,
                             _ body: (AccountService, String) async throws -> Void) async throws {
        let password = try PasswordPrompt.read(fromStandardInput: passwordFromStandardInput || isatty(STDIN_FILENO) == 0)
        let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
        try await ServerRunner.withApplication(config, logLevel: .warning) { app in
            do {
                try await body(app.accounts, password)
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    /// `reverie user create NAME`: the first account made becomes the owner.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account. The first account on a server becomes its owner.",
            discussion: "The password is asked for without echo, or read from the first line of standard input with --password-stdin."
        )

        @Argument(help: "The new account's username.")
        var username: String

        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input instead of asking.")
        var passwordFromStandardInput = false

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await User.withAccounts(storage: storage, passwordFromStandardInput: passwordFromStandardInput) { accounts, password in
                let user = try await accounts.createUser(username: username, password: password)
                print("Created \(user.isOwner ? "owner " : "")account '\(user.username)'.")
            }
        }
    }

    /// `reverie user set-password NAME`: for a person (the owner too) who forgot their password.
    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Set an account's password; its sessions and tokens are signed out.",
            discussion: """
                For someone who forgot their password, the owner included: the account and its history stay.
                The password is asked for without echo, or read from the first line of standard input with --password-stdin.
                With --temporary the person chooses a new password at their next sign-in.
                """
        )

        @Argument(help: "The account's username.")
        var username: String

        @Flag(help: "Make the person choose a new password when they next sign in.")
        var temporary = false

        @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input instead of asking.")
        var passwordFromStandardInput = false

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            try await User.withAccounts(storage: storage, passwordFromStandardInput: passwordFromStandardInput) { accounts, password in
                let user = try await accounts.setPassword(username: username, to: password, temporary: temporary)
                let next = temporary ? " They choose a new one when they next sign in." : ""
                print("Set the password of '\(user.username)'; their sessions and tokens are signed out.\(next)")
            }
        }
    }
}
