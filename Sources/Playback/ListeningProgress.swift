import Foundation

/// One thing a player reported about where a person is in an item. Events are only ever added
/// (an append-only log per person and item); the position is worked out from them.
public struct ProgressEvent: Codable, Sendable, Equatable, Hashable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case play, pause, seek, ended, timer
        /// The person chose to start again from the beginning: a 0 that counts.
        case restart
        /// The person marked the item unplayed: a 0 that counts.
        case unplayed
    }

    /// Made by the client, so a retried upload counts once.
    public var id: String
    /// Which device reported it (`phone`, `laptop`), as the person named it or the browser did.
    public var device: String
    /// Wall time on the device when it happened.
    public var at: Date
    /// Seconds into the item.
    public var position: Double
    public var kind: Kind

    public init(id: String, device: String, at: Date, position: Double, kind: Kind) {
        self.id = id
        self.device = device
        self.at = at
        self.position = position
        self.kind = kind
    }

    /// An event that says where the person really is: somewhere past the start, or a deliberate
    /// return to it. A 0 from anything else (a player that loaded from scratch, a sleep timer
    /// that wrote 0:00 when it stopped) says nothing about progress.
    public var isReal: Bool { position > 0 || kind == .restart || kind == .unplayed }
}

/// Where a person is in an item, as the log says.
public struct ListeningPosition: Codable, Sendable, Equatable {
    /// Seconds into the item.
    public var position: Double
    /// When the deciding event happened, and on which device.
    public var at: Date
    public var device: String
    /// The item was heard to its end (and not restarted since).
    public var finished: Bool

    public init(position: Double, at: Date, device: String, finished: Bool) {
        self.position = position
        self.at = at
        self.device = device
        self.finished = finished
    }
}

/// The rules that keep listening progress from ever being lost.
///
/// - Retries count once: events are told apart by their client ids.
/// - The position is the latest real event by its wall time, whenever it arrives: a device
///   that was offline and uploads older events later never overwrites newer progress. Of two
///   events at the same instant, the later to arrive decides.
/// - A 0 never replaces real progress unless the person restarts or marks the item unplayed.
/// - Two devices playing at once: the later event wins, event by event.
public enum ListeningProgress {
    /// The position after every event in `events` (in the order they arrived, duplicates
    /// allowed); nil when no event says anything yet.
    public static func position(_ events: some Sequence<ProgressEvent>, duration: Double? = nil) -> ListeningPosition? {
        guard let latest = deciding(events) else { return nil }
        let position = latest.kind == .ended ? (duration ?? latest.position) : latest.position
        return ListeningPosition(position: max(0, position), at: latest.at, device: latest.device, finished: latest.kind == .ended)
    }

    /// The event that decides the place: the latest real one by device time, whenever it arrived;
    /// of two at the same instant, the one that arrived later (`events` are in the order they
    /// arrived, as the server keeps them). The server keeps each device's answer beside the log
    /// (`ProgressRepository.places`), worked out by the same rule one event at a time.
    public static func deciding(_ events: some Sequence<ProgressEvent>) -> ProgressEvent? {
        var seen = Set<String>()
        var latest: ProgressEvent?
        for event in events where seen.insert(event.id).inserted && event.isReal {
            if event.at >= (latest?.at ?? .distantPast) { latest = event }
        }
        return latest
    }

    /// Heard to here (of its length) counts as heard through: Wind Down's finished items, a
    /// podcast episode's played mark.
    public static let finishedFraction = 0.95

    /// Whether the deciding event (`deciding`) says the item was heard: a natural end, or
    /// `finishedFraction` of `duration`.
    public static func isFinished(_ deciding: ProgressEvent?, duration: Double?) -> Bool {
        guard let deciding else { return false }
        if deciding.kind == .ended { return true }
        guard let duration, duration > 0 else { return false }
        return deciding.position >= finishedFraction * duration
    }

    /// How far through the item (0…1) a position is.
    public static func fraction(_ position: ListeningPosition?, duration: Double) -> Double {
        guard let position, duration > 0 else { return 0 }
        return position.finished ? 1 : min(1, max(0, position.position / duration))
    }

    /// Devices further apart than this are offered each other's place.
    public static let offerThreshold: Double = 120

    /// "Continue from 12:40 (phone)": offered when the latest progress comes from another device
    /// and is more than two minutes from where this device is; nil otherwise.
    public static func offer(_ latest: ListeningPosition?, device: String, localPosition: Double) -> String? {
        guard let latest, latest.device != device, !latest.finished, abs(latest.position - localPosition) > offerThreshold else { return nil }
        return "Continue from \(clock(latest.position)) (\(latest.device))"
    }

    /// `12:40`, `1:02:05`: minutes and seconds, with hours when there are any.
    public static func clock(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
