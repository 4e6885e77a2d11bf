import Foundation
import ReverieServer

/// A command that could not do its work: a file it cannot read, an engine that is not
/// installed, a name that is taken. ArgumentParser prints the message (no usage, which is for
/// arguments it could not parse: those stay `ValidationError`, exit 64) and exits with 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }

    /// The command line's one mapping from what the server's operations and the engines throw
    /// (`AccountError`, `LibraryError`, `WindDownError`, `OutsideFetchError`, an engine's error,
    /// or the few `APIError`s an operation shares with its route)
    /// to what a command says: their own sentence, after `subject` when given. Each is a refusal,
    /// exit 1; anything else keeps its own words.
    init(_ error: any Error, about subject: String? = nil) {
        let words = (error as? CommandFailure)?.description ?? (error as? APIError)?.message
            ?? (error as? any CustomStringConvertible)?.description ?? "\(error)"
        description = subject.map { "\($0): \(words)" } ?? words
    }
}
