import Foundation

/// Where a person is in one item.
public struct ItemProgress: Codable, Sendable, Equatable {
    public var item: String
    /// Seconds into the item; nil before anything was heard.
    public var position: Double?
    /// When and on which device the deciding event happened.
    public var at: Date?
    public var device: String?
    public var finished: Bool
    /// With `?device=`: that device's own latest place (nil when it has none).
    public var devicePosition: Double?
    /// With `?device=`: "Continue from 12:40 (phone)" when another device is further on or back by
    /// more than two minutes (`ListeningProgress.offer`).
    public var offer: String?

    public init(item: String, position: Double?, at: Date?, device: String?, finished: Bool,
                devicePosition: Double? = nil, offer: String? = nil) {
        (self.item, self.position, self.at, self.device, self.finished) = (item, position, at, device, finished)
        (self.devicePosition, self.offer) = (devicePosition, offer)
    }
}
