import Foundation

/// `POST /api/speech/renders`: a script to speak.
public struct SpeechRenderRequest: Codable, Sendable, Equatable {
    /// Script text with optional pause markers: `(0.3s)`, `(2s)`, `(1.5m)`.
    public var text: String
    /// A voice id from `GET /api/speech/voices`; the preferred engine's default when absent.
    public var voice: String?
    /// 0.8…1.2; 1 when absent.
    public var rate: Double?
    /// `m4a` (default), `opus` or `mp3`.
    public var format: String?

    public init(text: String, voice: String? = nil, rate: Double? = nil, format: String? = nil) {
        self.text = text
        self.voice = voice
        self.rate = rate
        self.format = format
    }
}
