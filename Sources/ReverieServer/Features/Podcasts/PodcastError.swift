import Foundation

/// Why a podcast's episode could not be had (its download job).
enum PodcastError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The episode left its feed after the download was asked for.
    case episodeGone
    /// The feed gives the episode no audio file: its title.
    case noAudio(String)

    var description: String {
        switch self {
        case .episodeGone: "The episode is no longer in its feed."
        case let .noAudio(title): "“\(title)” has no audio file in its feed."
        }
    }
}
