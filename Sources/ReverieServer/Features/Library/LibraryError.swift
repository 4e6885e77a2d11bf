import Foundation

/// Why adding files from the server's disk to a library (`reverie library import`) was refused.
public enum LibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchAccount(String)
    /// No account exists yet to own what is imported.
    case noOwner
    /// A folder to import as a book holds no MP3 files.
    case noMP3s(folder: String)
    /// A file to import cannot be read: its path.
    case unreadableFile(String)

    public var description: String {
        switch self {
        case let .noSuchAccount(name): "No account is named '\(name)'."
        case .noOwner: "There is no owner yet: run `reverie user create NAME` first."
        case let .noMP3s(folder): "\(folder) holds no MP3 files."
        case let .unreadableFile(path): "Cannot read \(path): no such file, or it is not readable."
        }
    }
}
