import Foundation

/// One progress event as a player sends it (`POST /api/progress/events`).
public struct ProgressEventInput: Codable, Sendable, Equatable {
    /// Made by the client (a UUID string, at most 100 characters): a retried upload counts once.
    public var id: String
    /// What was playing: `area:id`, for example `winddown:yoga_nidra_10min`.
    public var item: String
    /// The device's name (at most 60 characters): `phone`, `laptop`.
    public var device: String
    /// Wall time on the device.
    public var at: Date
    /// Seconds into the item.
    public var position: Double
    /// `play`, `pause`, `seek`, `ended`, `timer`, `restart` or `unplayed`.
    public var kind: String

    public init(id: String, item: String, device: String, at: Date, position: Double, kind: String) {
        (self.id, self.item, self.device, self.at, self.position, self.kind) = (id, item, device, at, position, kind)
    }
}
