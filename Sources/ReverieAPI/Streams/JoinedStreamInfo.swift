import Foundation

/// Files joined by the server into one stream (`GET /api/streams?parts=…`): what plays, where each
/// part starts in it, and where the joining stopped.
public struct JoinedStreamInfo: Codable, Sendable, Equatable {
    /// The stream: `/api/streams/audio?parts=…` with the parts that were joined (Range works; it
    /// also takes a rendition's `until`, `level` and `boost`).
    public var audioURL: String
    /// Seconds.
    public var duration: Double
    public var parts: [JoinedStreamPart]
    /// The first item asked for that could not be joined (a streamed episode, a LibriVox book, an
    /// article), and why: the parts before it are the stream, and the player goes on to it itself.
    public var stoppedAt: String?
    public var stopReason: String?

    public init(audioURL: String, duration: Double, parts: [JoinedStreamPart], stoppedAt: String?, stopReason: String?) {
        (self.audioURL, self.duration, self.parts, self.stoppedAt, self.stopReason) = (audioURL, duration, parts, stoppedAt, stopReason)
    }
}

/// One file in a joined stream.
public struct JoinedStreamPart: Codable, Sendable, Equatable {
    /// Its key in the progress log (`library:<id>`, `podcast:<episodeID>`).
    public var item: String
    /// The second of the stream it starts at.
    public var start: Double
    /// The second of its own file that plays there.
    public var from: Double
    /// Seconds of it in the stream (to its file's end).
    public var length: Double

    public init(item: String, start: Double, from: Double, length: Double) {
        (self.item, self.start, self.from, self.length) = (item, start, from, length)
    }
}
