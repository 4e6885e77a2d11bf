import Foundation

/// Why an article could not be imported (its job).
enum ArticleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The uploaded file the import was to read is gone from the server.
    case uploadGone
    /// The import names neither an address nor a file.
    case nothingToRead

    var description: String {
        switch self {
        case .uploadGone: "The uploaded file is no longer on the server; upload it again."
        case .nothingToRead: "This import names nothing to read."
        }
    }
}
