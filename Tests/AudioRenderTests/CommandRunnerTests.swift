import AudioRender
import Foundation
import Testing

@Suite("Running programs")
struct CommandRunnerTests {
    @Test("a command's pipes are closed in every program started after them, so none holds them open past the command's end")
    func pipesNotInherited() async throws {
        // A Piper worker started while an ffmpeg was being started held the ffmpeg's output pipe
        // for its whole life: the ffmpeg exited, and its answer never came. (Foundation closes in
        // a new program the descriptors open when it lists them; a pipe another thread made just
        // after was inherited. Marked close-on-exec, no program keeps one.)
        let held = Pipe.closedOnExec()
        let ends = [held.fileHandleForReading.fileDescriptor, held.fileHandleForWriting.fileDescriptor]
        for end in ends { #expect(fcntl(end, F_GETFD) & FD_CLOEXEC != 0) }
        let name = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(ends[0])")
        #expect(name.hasPrefix("pipe:["), "\(name)")
        // A program started now, with both ends still open here, lists its own descriptors.
        let listed = String(decoding: try await CommandRunner.live.run("sh", ["-c", "ls -l /proc/$$/fd"], nil).output, as: UTF8.self)
        #expect(listed.contains("pipe:["), "its own output is a pipe: \(listed)")
        #expect(!listed.contains(name), "it inherited \(name): \(listed)")
        try held.fileHandleForReading.close()
        try held.fileHandleForWriting.close()
    }
}
