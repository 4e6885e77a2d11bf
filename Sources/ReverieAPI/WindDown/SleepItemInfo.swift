import Foundation

/// One piece of sleep content in the Wind Down catalog, as the catalog lists it.
///
/// The `SleepLibrary` engine's `SleepItem` has the same fields; the server makes this from it in
/// one place (`SleepItemInfo+SleepItem.swift`), so that the engines need not know the wire types
/// and this module depends on nothing.
public struct SleepItemInfo: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var narrator: String
    /// Seconds: the audio's measured length once there is audio, else the catalog's.
    public var duration: Int
    /// The kind of content (`yogaNidra`, `sleepStory`, …).
    public var type: String
    public var description: String
    /// The script or file the audio comes from (`yoga_nidra_sleep_10min`); nil is Coming Soon.
    public var audio: String?
    /// A story's category: Fiction, Nature Journeys, Meditation or ASMR.
    public var category: String?
    /// A breathing exercise's pattern (`Inhale 4 · Hold 7 · Exhale 8`).
    public var technique: String?

    public init(id: String, title: String, narrator: String, duration: Int, type: String, description: String,
                audio: String?, category: String?, technique: String?) {
        self.id = id
        self.title = title
        self.narrator = narrator
        self.duration = duration
        self.type = type
        self.description = description
        self.audio = audio
        self.category = category
        self.technique = technique
    }
}
