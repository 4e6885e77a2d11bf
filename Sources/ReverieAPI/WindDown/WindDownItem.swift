import Foundation

/// `GET /api/winddown/{id}` (and each entry of `WindDownHome`): a catalog item with how far the
/// person got and how its audio stands.
public struct WindDownItem: Codable, Sendable, Equatable {
    /// How an item's audio stands, for the player.
    public struct Audio: Codable, Sendable, Equatable {
        /// `ready`, `speaking` (spoken on first play: playable now, made as it plays),
        /// `preparing` (ask again shortly), `failed` or `none` (Coming Soon).
        public var state: String
        /// Where to stream it from, when ready or speaking.
        public var url: String?
        /// While speaking: seconds of it made so far (0 before it starts).
        public var made: Double?
        /// Why it failed, when it did.
        public var detail: String?
        /// `bundled`, `upload` or `script`; `removed` when the owner took the item's audio away; nil
        /// when there is none.
        public var source: String?
        /// The uploaded file's name, for the owner.
        public var originalName: String?

        public init(state: String, url: String?, detail: String?, source: String?, originalName: String?, made: Double? = nil) {
            self.state = state
            self.made = made
            self.url = url
            self.detail = detail
            self.source = source
            self.originalName = originalName
        }
    }

    /// The catalog entry; its `duration` is the audio's measured length once there is audio.
    public var item: SleepItemInfo
    /// 0…1 heard.
    public var progress: Double
    /// Seconds into the item, when begun.
    public var position: Double?
    /// No audio yet: shown with the badge, and cannot be played.
    public var comingSoon: Bool
    public var audio: Audio

    public init(item: SleepItemInfo, progress: Double, position: Double?, comingSoon: Bool, audio: Audio) {
        self.item = item
        self.progress = progress
        self.position = position
        self.comingSoon = comingSoon
        self.audio = audio
    }
}
