import Foundation

/// Runs a program to completion. Arguments are passed as a list, never through a shell.
public struct CommandRunner: Sendable {
    /// What a finished program left behind.
    public struct Result: Sendable, Equatable {
        public var status: Int32
        public var output: Data
        public var errors: Data

        public init(status: Int32, output: Data, errors: Data) {
            self.status = status
            self.output = output
            self.errors = errors
        }
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` and `input` on stdin.
    public var run: @Sendable (_ executable: String, _ arguments: [String], _ input: Data?) async throws -> Result

    public init(run: @escaping @Sendable (_ executable: String, _ arguments: [String], _ input: Data?) async throws -> Result) {
        self.run = run
    }

    /// Real processes. Each waits for its program on threads of its own, never Dispatch's global
    /// queue: on Linux that queue's few threads are also where Swift's tasks run, and it adds a
    /// thread only about once a second when they are all held, so two commands' waits (each holds
    /// three: the wait and its two pipes' reads) stalled every request for one to two seconds.
    public static let live = CommandRunner { executable, arguments, input in
        guard let path = CommandRunner.locate(executable) else { throw AudioRenderError.toolMissing(executable) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: path)
                    process.arguments = arguments
                    let stdin = Pipe.closedOnExec(), stdout = Pipe.closedOnExec(), stderr = Pipe.closedOnExec()
                    process.standardInput = stdin
                    process.standardOutput = stdout
                    process.standardError = stderr
                    try process.run()
                    // Read both pipes while writing, so a chatty program never blocks on a full pipe.
                    let group = DispatchGroup()
                    nonisolated(unsafe) var output = Data(), errors = Data()
                    group.enter()
                    Thread.detachNewThread { output = stdout.fileHandleForReading.readDataToEndOfFile(); group.leave() }
                    group.enter()
                    Thread.detachNewThread { errors = stderr.fileHandleForReading.readDataToEndOfFile(); group.leave() }
                    if let input { try? stdin.fileHandleForWriting.write(contentsOf: input) }
                    try? stdin.fileHandleForWriting.close()
                    group.wait()
                    process.waitUntilExit()
                    continuation.resume(returning: Result(status: process.terminationStatus, output: output, errors: errors))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The full path of a program: itself when it contains a slash, else the first match on PATH.
    public static func locate(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

extension Pipe {
    /// A pipe whose ends are closed in every program started after it (`FD_CLOEXEC`). Without it,
    /// a process another task starts meanwhile (a Piper worker, another ffmpeg) inherits both ends
    /// and keeps them open for its whole life, so a reader waiting for the end of this child's
    /// output never sees it: a command that exited is never answered. The child it is made for
    /// gets its end as 0, 1 or 2, made again by the start without the flag.
    public static func closedOnExec() -> Pipe {
        let pipe = Pipe()
        for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }
}
