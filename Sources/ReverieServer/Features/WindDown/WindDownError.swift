import Foundation

/// Why giving a Wind Down item audio (an upload or a script), or making it, was refused; for
/// the owner's routes and `reverie winddown` alike.
public enum WindDownError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchItem(String)
    /// The item has no audio yet: its title.
    case comingSoon(String)
    /// A container Wind Down does not take: what it is.
    case unsupportedContainer(String)
    /// Longer than Wind Down takes: its length in minutes.
    case tooLong(minutes: Int)
    /// The file an item is spoken into while it plays could not be written.
    case liveAudioUnwritable
    /// Speaking the item failed (tried again after a minute).
    case audioFailed

    public var description: String {
        switch self {
        case let .noSuchItem(id): "No Wind Down item is called “\(id.prefix(100))”; `reverie winddown list` names them."
        case let .comingSoon(title): "“\(title)” is coming soon: it has no audio yet."
        case let .unsupportedContainer(container): "This is a \(container) file; upload MP3, M4A, Ogg or WAV."
        case let .tooLong(minutes): "The audio lasts \(minutes) minutes; Wind Down takes up to 4 hours."
        case .liveAudioUnwritable: "The live audio file could not be written."
        case .audioFailed: "The audio could not be made; try again in a minute, or ask the server's owner to look at its log."
        }
    }
}
