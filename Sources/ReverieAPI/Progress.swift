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

public struct ProgressEventsRequest: Codable, Sendable, Equatable {
    public var events: [ProgressEventInput]
    public init(events: [ProgressEventInput]) { self.events = events }
}

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

/// The answer to `POST /api/progress/events`: how many events were new, and each item's place now.
public struct ProgressEventsResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var items: [ItemProgress]
    public init(accepted: Int, items: [ItemProgress]) { (self.accepted, self.items) = (accepted, items) }
}
