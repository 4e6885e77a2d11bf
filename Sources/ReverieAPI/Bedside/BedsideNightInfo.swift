import Foundation

/// `POST /api/bedside/night`: where the person's night stream plays from (issue 46).
public struct BedsideNightInfo: Codable, Sendable, Equatable {
    /// The stream's address on this server, for an `<audio>` element's `src`.
    public var stream: String
    /// `audio/mpeg`.
    public var contentType: String
    /// Bits per second (the phone's cost: 7.2 MB an hour at 16 kb/s).
    public var bitrate: Int
    /// The chime and the room's sound are made (on a server that just started, they are being made
    /// after the first ask; until then the stream holds silence where they would sound).
    public var prepared: Bool

    public init(stream: String, contentType: String, bitrate: Int, prepared: Bool) {
        self.stream = stream
        self.contentType = contentType
        self.bitrate = bitrate
        self.prepared = prepared
    }
}
