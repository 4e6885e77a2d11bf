/// What can go wrong making or reading audio.
public enum AudioRenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// WAV bytes that cannot be read, and why.
    case malformedWAV(String)
    /// An external tool (ffmpeg) is not installed.
    case toolMissing(String)
    /// An external tool failed: its name, exit status and the end of what it printed.
    case toolFailed(tool: String, status: Int32, message: String)
    /// Loudness of silence (or of audio shorter than one 400 ms block) is undefined.
    case tooQuietToMeasure
    /// A file that ffprobe finds no audio stream in (or cannot read at all).
    case notAudio(String)

    public var description: String {
        switch self {
        case let .malformedWAV(reason): "The WAV file cannot be read: \(reason)."
        case let .toolMissing(tool): "\(tool) is not installed; run scripts/bootstrap.sh (make run installs it)."
        case let .toolFailed(tool, status, message): "\(tool) failed (exit \(status)): \(message)"
        case .tooQuietToMeasure: "The audio is silent or too short to measure its loudness."
        case let .notAudio(reason): "This is not an audio file we can play: \(reason). Use MP3, M4A, Ogg or WAV."
        }
    }
}
