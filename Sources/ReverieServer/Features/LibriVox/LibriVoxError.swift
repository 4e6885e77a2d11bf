import Foundation

/// Why LibriVox could not give a book.
enum LibriVoxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The catalog no longer lists the book (or lists it with no recordings).
    case bookGone
    /// The catalog answered with something that is not its catalog.
    case unreadableCatalog

    var description: String {
        switch self {
        case .bookGone: "LibriVox no longer lists this book."
        case .unreadableCatalog: "LibriVox answered with something that is not its catalog. Try again later."
        }
    }
}
