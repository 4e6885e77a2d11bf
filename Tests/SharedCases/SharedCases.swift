import Foundation

/// The case files in `Tests/Shared`: rules Reverie writes twice, in a Swift engine and in its
/// JavaScript twin under `Web/`, held to the same cases. The Swift suites read them here; the
/// browser tests read the same files through `e2e/shared_cases.py`.
public enum SharedCases {
    /// `Tests/Shared`, found from this file's place in the checkout (tests run from source).
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Shared")

    /// A case file that is missing or does not decode as the suite expects.
    public struct LoadError: Error, CustomStringConvertible {
        /// The file's name in `Tests/Shared`.
        public var name: String
        /// What went wrong.
        public var reason: String
        public var description: String { "Tests/Shared/\(name): \(reason)" }
    }

    /// The file `name` (with its `.json`) in `Tests/Shared`, decoded as `type`.
    public static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        let data: Data
        do {
            data = try Data(contentsOf: directory.appendingPathComponent(name))
        } catch {
            throw LoadError(name: name, reason: "cannot be read (\(error.localizedDescription))")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw LoadError(name: name, reason: "does not decode: \(error)")
        }
    }
}

/// The sleep timer's one fade as `sleep-timer-cases.json` pins it (its `fade` block): read by
/// Playback's tests, the server's (the live file and the renditions) and, in the browser, by
/// `e2e/test_listen_player.py`.
public struct SleepFadeCases: Decodable, Sendable {
    /// The gain with `left` seconds to the timer's end.
    public struct Gain: Decodable, Sendable, CustomStringConvertible {
        public var left: Double
        public var gain: Double
        public var description: String { "\(left) s left" }
    }

    /// Its length in seconds.
    public var seconds: Double
    /// Its shape's name (`linear`).
    public var shape: String
    /// ffmpeg's `afade` curve for that shape (`tri`).
    public var ffmpegCurve: String
    public var gains: [Gain]
}
