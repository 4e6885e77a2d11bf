/// What can go wrong reading a media file. Every case says what a person can do about it.
public enum MediaFormatsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are neither MP4/M4A/M4B nor MP3.
    case unsupportedFormat
    /// The file is damaged or cut short: which part, and why.
    case malformed(String)
    /// The file asks for more than we are willing to read (a box, a tag, a count): what, and the cap.
    case tooLarge(String)
    /// The file cannot be read from disk.
    case unreadable(String)
    /// An MP4 container with no sound in it (a video's picture only, or nothing).
    case noAudio

    public var description: String {
        switch self {
        case .unsupportedFormat:
            "This is not an audio file we can read. Use MP3, M4A or M4B."
        case let .malformed(reason):
            "The file is damaged or incomplete: \(reason). Try exporting it again."
        case let .tooLarge(what):
            "The file is too large to read safely: \(what)."
        case let .unreadable(reason):
            "The file cannot be read: \(reason)."
        case .noAudio:
            "The file holds no audio track. Export the sound itself as MP3, M4A or M4B."
        }
    }
}
