import Foundation

/// Compressed audio files made by ffmpeg.
public struct AudioEncoder: Sendable {
    /// An output format.
    public enum Format: String, Sendable, CaseIterable, Codable {
        /// AAC in an MPEG-4 container: plays everywhere, including iOS lock screens.
        case m4a
        /// Opus in Ogg: smallest for speech.
        case opus
        case mp3

        public var fileExtension: String { rawValue }

        /// MIME type for HTTP.
        public var contentType: String {
            switch self {
            case .m4a: "audio/mp4"
            case .opus: "audio/ogg"
            case .mp3: "audio/mpeg"
            }
        }

        /// The format a file name's extension names.
        public init?(fileName: String) {
            switch (fileName as NSString).pathExtension.lowercased() {
            case "m4a", "mp4", "aac": self = .m4a
            case "opus", "ogg": self = .opus
            case "mp3": self = .mp3
            default: return nil
            }
        }

        var codecArguments: [String] {
            switch self {
            case .m4a: ["-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart"]
            case .opus: ["-c:a", "libopus", "-b:a", "48k", "-application", "voip"]
            case .mp3: ["-c:a", "libmp3lame", "-q:a", "4"]
            }
        }
    }

    public var runner: CommandRunner
    /// The ffmpeg program (a name on PATH or a path).
    public var ffmpeg: String

    public init(runner: CommandRunner = .live, ffmpeg: String = "ffmpeg") {
        self.runner = runner
        self.ffmpeg = ffmpeg
    }

    /// Encodes `buffer` into `format` at `destination` (written to a temporary name, then moved in
    /// place, so a reader never sees half a file).
    public func encode(_ buffer: AudioBuffer, as format: Format, to destination: URL) async throws {
        try await AudioFiles(runner: runner, ffmpeg: ffmpeg).ffmpegRun(
            ["-f", "wav", "-i", "pipe:0"] + format.codecArguments + ["-f", format == .m4a ? "mp4" : (format == .opus ? "ogg" : "mp3")],
            input: WAVFile.encode(buffer), to: destination)
    }
}
