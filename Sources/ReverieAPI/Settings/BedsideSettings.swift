import Foundation

/// The night-stand screen's settings, kept for the person (the seed's UserDefaults keys). Every
/// field is optional so a PATCH can carry one; the server's answers fill them all in.
public struct BedsideSettings: Codable, Sendable, Equatable {
    /// `off`, `meditation` or `poetry`: what the Leaf/Masks button is doing.
    public var contentMode: String?
    /// `meditation` or `poetry`: the last mode that played.
    public var lastContentMode: String?
    /// A voice id (`GET /api/speech/voices`) for meditations and poems alike; nil for the server's default.
    public var voice: String?
    /// Speech speed, 0.8 to 1.2.
    public var rate: Double?
    /// Captions under the clock while a piece plays (on by default).
    public var captions: Bool?
    /// The room's sound, 0 to 1.
    public var roomVolume: Double?
    /// `rain`, `ocean`, `forest`, `brown` or `silence`.
    public var room: String?
    /// A 24-hour clock; nil follows the device's locale.
    public var clock24: Bool?
    /// A meditation or poem played to its end since the alarm was set: the wake greeting is spoken.
    public var contentCompletedSuccessfully: Bool?
    public var alarm: BedsideAlarm?
    /// The moment the alarm's chime sounds from, in milliseconds since 1970 (its next minute, or the
    /// end of a snooze), written when the alarm is set, snoozed or stopped; 0 when none is pending.
    /// Bedside's night stream rings by it (issue 46).
    public var alarmAt: Double?

    public init(contentMode: String? = nil, lastContentMode: String? = nil, voice: String? = nil, rate: Double? = nil,
                captions: Bool? = nil, roomVolume: Double? = nil, room: String? = nil, clock24: Bool? = nil,
                contentCompletedSuccessfully: Bool? = nil, alarm: BedsideAlarm? = nil, alarmAt: Double? = nil) {
        self.contentMode = contentMode
        self.lastContentMode = lastContentMode
        self.voice = voice
        self.rate = rate
        self.captions = captions
        self.roomVolume = roomVolume
        self.room = room
        self.clock24 = clock24
        self.contentCompletedSuccessfully = contentCompletedSuccessfully
        self.alarm = alarm
        self.alarmAt = alarmAt
    }
}
