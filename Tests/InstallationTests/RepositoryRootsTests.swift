import Foundation
import Installation
import Testing

@Suite struct RepositoryRootsTests {
    /// A checkout with a built binary at `.build/debug/reverie` and a `scripts/` file, and a
    /// folder elsewhere to start from; removed by the caller.
    static func checkout() throws -> (top: URL, repository: URL, elsewhere: URL, binary: URL) {
        let top = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString)").resolvingSymlinksInPath()
        let repository = top.appendingPathComponent("repo")
        let elsewhere = top.appendingPathComponent("elsewhere")
        let build = repository.appendingPathComponent(".build/debug")
        for folder in [build, elsewhere, repository.appendingPathComponent("scripts")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let binary = build.appendingPathComponent("reverie")
        try Data().write(to: binary)
        try Data().write(to: repository.appendingPathComponent("scripts/piper_worker.py"))
        return (top, repository, elsewhere, binary)
    }

    @Test func triesTheWorkingDirectoryThenTheBinarysFolderAndThreeAbove() throws {
        let (top, repository, elsewhere, binary) = try Self.checkout()
        defer { try? FileManager.default.removeItem(at: top) }
        let roots = RepositoryRoots(workingDirectory: elsewhere.path, executable: binary.path)
        #expect(roots.candidates == [elsewhere.path, repository.path + "/.build/debug", repository.path + "/.build", repository.path, top.path])
    }

    @Test func findsTheRepositoryAboveTheBinaryFromAnotherFolder() throws {
        let (top, repository, elsewhere, binary) = try Self.checkout()
        defer { try? FileManager.default.removeItem(at: top) }
        let roots = RepositoryRoots(workingDirectory: elsewhere.path, executable: binary.path)
        #expect(roots.first(containing: "scripts/piper_worker.py") == repository.path)
        #expect(roots.first(containing: "scripts/missing.py") == nil)
    }

    @Test func theWorkingDirectoryWinsWhenItHoldsThePath() throws {
        let (top, _, elsewhere, binary) = try Self.checkout()
        defer { try? FileManager.default.removeItem(at: top) }
        try FileManager.default.createDirectory(at: elsewhere.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        try Data().write(to: elsewhere.appendingPathComponent("scripts/piper_worker.py"))
        let roots = RepositoryRoots(workingDirectory: elsewhere.path, executable: binary.path)
        #expect(roots.first(containing: "scripts/piper_worker.py") == elsewhere.path)
    }

    /// A binary started through a link (`/usr/local/bin/reverie` → the checkout's build) still
    /// finds the checkout.
    @Test func followsALinkToTheBinary() throws {
        let (top, repository, elsewhere, binary) = try Self.checkout()
        defer { try? FileManager.default.removeItem(at: top) }
        let link = elsewhere.appendingPathComponent("reverie")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: binary)
        let roots = RepositoryRoots(workingDirectory: top.path, executable: link.path)
        #expect(roots.first(containing: "scripts/piper_worker.py") == repository.path)
    }
}
