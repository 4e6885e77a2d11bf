import ArgumentParser
import Foundation
import ReverieServer

/// `reverie library import PATH...`.
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Work with the Listen library.",
        subcommands: [Import.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add audio files on this machine to a person's Listen library (MP3, M4A, M4B).",
            discussion: """
                A folder is searched for audio files (in natural name order). Files are copied into the data directory; \
                the same bytes a person already has are skipped. An M4B or a file with chapters becomes a book, anything \
                else music, unless --kind says otherwise. One folder with --kind book becomes one book of its MP3 files, \
                a chapter each, ordered by disc, track and natural name. The running server shows them at once.
                """
        )

        @Argument(help: "Files or folders to import.")
        var paths: [String]

        @Option(help: "The account to import for (default: the owner).")
        var user: String?

        @Option(help: "book or music, for every file (default: decided per file).")
        var kind: String?

        @OptionGroup var storage: StorageOptions

        static let extensions: Set<String> = ["mp3", "m4a", "m4b", "mp4", "aac"]

        func validate() throws {
            if let kind, !["book", "music"].contains(kind) { throw ValidationError("--kind is book or music.") }
        }

        /// Every audio file under `paths`, folders searched in natural name order.
        func files() throws -> [URL] {
            var found: [URL] = []
            for path in paths {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw CommandFailure("Cannot read \(path): no such file or folder.")
                }
                let url = URL(fileURLWithPath: path)
                guard isDirectory.boolValue else { found.append(url); continue }
                let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
                var inFolder: [URL] = []
                while let next = walker?.nextObject() as? URL {
                    if Self.extensions.contains(next.pathExtension.lowercased()) { inFolder.append(next) }
                }
                found += inFolder.sorted { $0.path.localizedStandardCompare($1.path) == .orderedAscending }
            }
            return found
        }

        func run() async throws {
            let files = try files()
            guard !files.isEmpty else { throw CommandFailure("No MP3, M4A or M4B files were found in \(paths.joined(separator: ", ")).") }
            let config = try ServerConfig.resolve(overrides: .init(storage: storage), environment: ProcessInfo.processInfo.environment)
            var failures = 0
            try await ServerRunner.withApplication(config, logLevel: .warning) { app in
                // A folder imported as a book is one book of its MP3 parts.
                if kind == "book", paths.count == 1, (try? URL(fileURLWithPath: paths[0]).resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                    do {
                        let book = try await app.importBookToLibrary(folder: URL(fileURLWithPath: paths[0]), username: user)
                        print(book.duplicate ? "\(paths[0]): already in the library as “\(book.title)”"
                                             : "\(paths[0]): added as a book, “\(book.title)”, \(book.chapters) chapters")
                    } catch {
                        throw CommandFailure(error)
                    }
                    return
                }
                for file in files {
                    do {
                        let result = try await app.importToLibrary(file: file, username: user, kind: kind)
                        print(result.duplicate ? "\(file.lastPathComponent): already in the library as “\(result.title)”"
                                               : "\(file.lastPathComponent): added as \(result.kind == "book" ? "a book" : "music"), “\(result.title)”")
                    } catch {
                        failures += 1
                        FileHandle.standardError.write(Data("\(CommandFailure(error, about: file.lastPathComponent))\n".utf8))
                    }
                }
            }
            if failures > 0 { throw CommandFailure("\(failures) of \(files.count) files could not be imported.") }
        }
    }
}
