import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a password without showing it.
enum PasswordPrompt {
    /// From standard input's first line, or from the terminal with echo turned off, asked twice.
    static func read(fromStandardInput: Bool) throws -> String {
        if fromStandardInput {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandFailure("No password on standard input.")
            }
            return line
        }
        let first = try ask("Password: ")
        let second = try ask("Repeat password: ")
        guard first == second else { throw CommandFailure("The passwords do not match.") }
        return first
    }

    private static func ask(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        guard let line = readLine(strippingNewline: true) else { throw CommandFailure("No password given.") }
        return line
    }
}
