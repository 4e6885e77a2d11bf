import Foundation

/// A command that could not do its work: a file it cannot read, an engine that is not
/// installed, a name that is taken. ArgumentParser prints the message (no usage, which is for
/// arguments it could not parse: those stay `ValidationError`, exit 64) and exits with 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }
}
