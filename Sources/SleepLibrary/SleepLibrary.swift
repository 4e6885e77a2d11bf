import Foundation
import Playback

/// One piece of sleep content in the Wind Down catalog.
public struct SleepItem: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var title: String
    public var narrator: String
    /// Seconds, as the catalog lists it (the seed's duration); a rendered item's measured length
    /// is the server's to report.
    public var duration: Int
    public var type: SleepContentType
    public var description: String
    /// The script or file the audio comes from (`yoga_nidra_sleep_10min`); nil is Coming Soon.
    public var audio: String?
    /// A story's category: Fiction, Nature Journeys, Meditation or ASMR.
    public var category: String?
    /// A breathing exercise's pattern (`Inhale 4 · Hold 7 · Exhale 8`).
    public var technique: String?

    /// Without audio the item is shown with the Coming Soon badge and cannot be played.
    public var isComingSoon: Bool { audio == nil }
}

/// How far a person got through an item, as Continue Listening needs it.
public struct SleepProgress: Sendable, Equatable {
    public var itemID: String
    /// 0…1 of the item heard.
    public var fraction: Double
    /// When the progress last moved.
    public var updatedAt: Date

    public init(itemID: String, fraction: Double, updatedAt: Date) {
        self.itemID = itemID
        self.fraction = fraction
        self.updatedAt = updatedAt
    }
}

/// The Wind Down catalog (`Resources/catalog.json`): the seed's entries, copied exactly, and our
/// twelve sleep stories; with the greeting, the featured item and Continue Listening.
public struct SleepLibrary: Sendable {
    public let items: [SleepItem]

    /// Featured Tonight: the complete yoga nidra, which has real audio.
    public static let featuredID = "yoga_nidra_10min"
    /// Items heard this far or further count as finished and leave Continue Listening.
    public static let finishedFraction = ListeningProgress.finishedFraction

    public init(items: [SleepItem]) {
        self.items = items
    }

    /// The catalog from the module's resources.
    public static func bundled() throws(SleepLibraryError) -> SleepLibrary {
        guard let url = Bundle.module.url(forResource: "catalog", withExtension: "json"),
              let data = try? Data(contentsOf: url) else { throw .catalogUnreadable("catalog.json is missing from the SleepLibrary module") }
        struct File: Decodable { var items: [SleepItem] }
        do {
            return SleepLibrary(items: try JSONDecoder().decode(File.self, from: data).items)
        } catch {
            throw .catalogUnreadable("catalog.json does not parse: \(error)")
        }
    }

    public func item(_ id: String) -> SleepItem? { items.first { $0.id == id } }

    /// The text of a bundled script (`yoga_nidra_sleep_10min`), with pause markers; nil when the
    /// module has no script of that name.
    public static func script(named name: String) -> String? {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
              let url = Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "scripts") else { return nil }
        return try? String(contentsOf: url, encoding: .utf8)
    }

    public var featured: SleepItem? { item(Self.featuredID) }

    /// The items of one type, in catalog order.
    public func items(of type: SleepContentType) -> [SleepItem] { items.filter { $0.type == type } }

    /// Items begun and not finished (0 < fraction < 0.95), the most recently heard first.
    public func continueListening(_ progress: [SleepProgress]) -> [SleepItem] {
        progress
            .filter { $0.fraction > 0 && $0.fraction < Self.finishedFraction }
            .sorted { $0.updatedAt > $1.updatedAt }
            .compactMap { item($0.itemID) }
    }

    /// The header's greeting for an hour of the person's day (0…23): "Ready for Sleep?" from
    /// 21:00 to 04:59, "Good Evening" from 17:00 to 20:59, else "Wind Down".
    public static func greeting(hour: Int) -> String {
        if hour >= 21 || hour < 5 { return "Ready for Sleep?" }
        if hour >= 17 { return "Good Evening" }
        return "Wind Down"
    }

    /// The greeting at a moment, in the person's time zone.
    public static func greeting(at date: Date, in timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return greeting(hour: calendar.component(.hour, from: date))
    }
}

/// What can go wrong in the sleep library.
public enum SleepLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    case catalogUnreadable(String)

    public var description: String {
        switch self {
        case let .catalogUnreadable(reason): "The Wind Down catalog cannot be read: \(reason)."
        }
    }
}
