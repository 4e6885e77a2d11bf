import Foundation
import ReverieAPI

/// One person's request to speak a script, as the `speech_renders` table holds it: what
/// `SpeechRenderRepository` answers, a value that knows nothing of the database (see
/// `SpeechRenderModel` for the row it is read from). The audio itself lives in the speech cache
/// under `cacheKey`.
public struct SpeechRenderRecord: Sendable, Equatable {
    public var id: UUID
    /// `rendering`, `done` or `failed`.
    public var status: SpeechRenderInfo.Status
    /// Where the audio is (or will be) in the content-addressed speech cache.
    public var cacheKey: String
    /// The name of the engine that speaks it.
    public var engine: String
    public var voice: String?
    /// The speaking rate, 0.8 to 1.2.
    public var rate: Double
    /// `m4a`, `opus` or `mp3` (an `AudioEncoder.Format`'s raw value).
    public var format: String
    /// The length of the script, in characters.
    public var characters: Int
    /// The length of the audio, in milliseconds, once it is done.
    public var durationMs: Int?
    /// The script parser's warnings, as JSON.
    public var warnings: String
    /// Why the render failed.
    public var error: String?
    /// When it was asked for; nil only before it is written.
    public var createdAt: Date?
    /// When it finished or failed.
    public var finishedAt: Date?
    /// The script (kept while it renders, so another server can take it over).
    public var script: String? = nil
    /// The server speaking it, and when it last said so.
    public var worker: String? = nil
    public var heartbeatAt: Date? = nil
}
