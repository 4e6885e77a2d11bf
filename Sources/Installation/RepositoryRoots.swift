import Foundation

/// The folders a program looks in for the repository it was built from, so that a binary run
/// from a checkout finds the checkout's own files (`.venv`, `scripts/`, `Web/`) wherever it is
/// started: the working directory first, then the running executable's folder and the three
/// above it (`.build/<config>/reverie` and `.build/<triple>/<config>/reverie` both reach the
/// repository). Symbolic links to the executable are followed to where it really is.
public struct RepositoryRoots: Sendable, Equatable {
    /// How many folders are tried from the executable's up: its own and the three above it.
    public static let levelsFromExecutable = 4

    /// Absolute folder paths in the order they are tried, the working directory first.
    public let candidates: [String]

    /// - Parameters:
    ///   - workingDirectory: tried first; the process's working directory by default.
    ///   - executable: the running binary's path as started (`CommandLine.arguments[0]` by default).
    public init(workingDirectory: String = FileManager.default.currentDirectoryPath,
                executable: String = CommandLine.arguments.first ?? "") {
        var candidates = [workingDirectory]
        var directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<Self.levelsFromExecutable {
            candidates.append(directory.path)
            directory = directory.deletingLastPathComponent()
        }
        self.candidates = candidates
    }

    /// The first candidate that holds `relativePath` (a file or folder, such as
    /// `scripts/piper_worker.py`), or nil when none does.
    public func first(containing relativePath: String) -> String? {
        candidates.first { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent(relativePath)) }
    }
}
