import Foundation

/// Why an HLS-only station could not be played.
enum RadioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Its playlist could not be read: why.
    case unreadablePlaylist(String)
    /// Its playlist lists no stream that can be played.
    case noPlayableStream
    /// Its playlists point to one another without end.
    case playlistLoop
    /// It encrypts its stream.
    case encrypted
    /// The segment asked for has left the playlist.
    case segmentPassed

    var description: String {
        switch self {
        case let .unreadablePlaylist(why): "The station's HLS playlist could not be read (\(why)). Try another station."
        case .noPlayableStream: "The station's HLS playlist lists no stream that can be played."
        case .playlistLoop: "The station's HLS playlists point to one another without end."
        case .encrypted: "This station encrypts its stream, so it plays only in its own app or website."
        case .segmentPassed: "That part of the stream has passed; reload the station."
        }
    }
}
