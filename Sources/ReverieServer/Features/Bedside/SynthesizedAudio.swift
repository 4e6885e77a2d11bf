import AudioRender
import Foundation

/// Sounds `AudioRender` makes (the meditation bell, Bedside's rooms and chime), encoded once to
/// M4A under a cache folder and served from there: the first request makes a file, concurrent
/// ones wait for that same work, later ones (and later starts) find it on disk.
actor SynthesizedAudio {
    struct File: Sendable, Equatable {
        var url: URL
        var durationMs: Int
    }

    private let directory: URL
    private let encoder = AudioEncoder()
    private var making: [String: Task<File, any Error>] = [:]

    init(directory: URL) {
        self.directory = directory
    }

    /// The file `name` (versioned by the caller: `rain-v1.m4a`), made with `make` when it is not there yet.
    func file(_ name: String, make: @escaping @Sendable () -> AudioBuffer) async throws -> File {
        if let running = making[name] { return try await running.value }
        let task = Task { try await self.encode(name, make) }
        making[name] = task
        defer { making[name] = nil }
        return try await task.value
    }

    private func encode(_ name: String, _ make: @Sendable () -> AudioBuffer) async throws -> File {
        let url = directory.appendingPathComponent(name)
        let lengthFile = directory.appendingPathComponent(".\(name).ms")
        if FileManager.default.fileExists(atPath: url.path), let text = try? String(contentsOf: lengthFile, encoding: .utf8), let ms = Int(text) {
            return File(url: url, durationMs: ms)
        }
        let buffer = make()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scratch = directory.appendingPathComponent(".\(UUID().uuidString)-\(name)")
        try await encoder.encode(buffer, as: .m4a, to: scratch)
        _ = try? FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: scratch, to: url)
        let ms = Int((buffer.duration * 1000).rounded())
        try String(ms).write(to: lengthFile, atomically: true, encoding: .utf8)
        return File(url: url, durationMs: ms)
    }
}
