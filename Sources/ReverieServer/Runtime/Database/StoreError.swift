import Foundation

/// What the stores need of the database and did not get.
enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A store's statement is SQL, and the database does not speak it.
    case notSQL

    var description: String {
        switch self {
        case .notSQL: "The database does not speak SQL."
        }
    }
}
