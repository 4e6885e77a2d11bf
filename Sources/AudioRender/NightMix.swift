import Foundation

/// Bedside's night as sound, a stretch at a time on the wall clock: the room's loop at the
/// person's room volume, and from the alarm's moment the chime rising over a minute and then going
/// on at full until the alarm is stopped or snoozed (issue 46). What sounds at a moment depends
/// only on the moment and the plan, never on how long the stream has run, so a listener who comes
/// back after a drop hears where the night is now.
public struct NightMix: Sendable {
    /// What the night holds as it stands (read again from the person's settings as it changes).
    public struct Plan: Sendable, Equatable {
        public var room: RoomSound
        /// The room's level, 0–1 (an amplitude, as an element's volume is).
        public var roomVolume: Double
        /// The moment the chime starts (the alarm's minute, or the end of a snooze); nil while no
        /// alarm is pending.
        public var alarmAt: Date?

        public init(room: RoomSound, roomVolume: Double, alarmAt: Date?) {
            self.room = room
            self.roomVolume = min(1, max(0, roomVolume))
            self.alarmAt = alarmAt
        }
    }

    public let sampleRate: Int
    /// The chime's rise; after rise + hold it goes on repeating its held stretch.
    public static let chimeRise: Double = 60
    static let chimeHold: Double = 60
    /// How long a change of level takes (no click when the slider moves).
    static let glide: Double = 0.25

    private let sounds: Sounds
    private var roomLevel: Float?
    /// How long before the alarm's moment the chime is asked for, if it was not yet (`prepare` asks sooner).
    static let chimeNeededWithin: TimeInterval = 30

    public init(sampleRate: Int = 16_000) {
        self.sampleRate = sampleRate
        sounds = Sounds.at(sampleRate)
    }

    /// ffmpeg's arguments for the night as a live MP3: mono 32-bit float samples at `sampleRate` on
    /// its standard input, MP3 at `kbps` on its standard output (no tag, no Xing frame: a stream).
    public static func mp3Arguments(sampleRate: Int, kbps: Int) -> [String] {
        ["-f", "f32le", "-ar", String(sampleRate), "-ac", "1", "-i", "pipe:0",
         "-c:a", "libmp3lame", "-b:a", "\(kbps)k", "-id3v2_version", "0", "-write_xing", "0", "-f", "mp3", "pipe:1"]
    }

    /// Starts making the chime and `room`'s loop (off the caller's thread), for the streams to come.
    public static func prepare(sampleRate: Int = 16_000, room: RoomSound) {
        let sounds = Sounds.at(sampleRate)
        _ = sounds.room(room)
        _ = sounds.chime
    }

    /// Returns once everything `prepare` asked for so far is made (its queue is serial).
    public static func finishPreparing(sampleRate: Int = 16_000) async {
        let sounds = Sounds.at(sampleRate)
        await withCheckedContinuation { continuation in sounds.making.async { continuation.resume() } }
    }

    /// Whether the chime and `room`'s loop are made.
    public static func prepared(sampleRate: Int = 16_000, room: RoomSound) -> Bool {
        let sounds = Sounds.at(sampleRate)
        return sounds.room(room) != nil && sounds.chime != nil
    }

    /// `count` samples of the night from `start` on, as `plan` has it.
    public mutating func render(_ plan: Plan, from start: Date, count: Int) -> [Float] {
        var output = [Float](repeating: 0, count: count)
        guard count > 0 else { return output }
        let rate = Double(sampleRate)
        let glideSamples = max(1, Double(sampleRate) * Self.glide)

        // The room: its loop placed on the wall clock, so every stretch follows on from the last.
        let loop = sounds.room(plan.room) ?? []
        let target = Float(plan.roomVolume)
        var level = roomLevel ?? target
        let step = (target - level) / Float(glideSamples)
        if !loop.isEmpty {
            let first = Int((start.timeIntervalSince1970 * rate).rounded(.down).truncatingRemainder(dividingBy: Double(loop.count)))
            var index = first
            for offset in 0..<count {
                if level != target { level = abs(target - level) <= abs(step) ? target : level + step }
                output[offset] = loop[index] * level
                index += 1
                if index == loop.count { index = 0 }
            }
        }
        roomLevel = level

        // The chime: from its moment, at its place in the rise (or in the held stretch after).
        if let alarmAt = plan.alarmAt, alarmAt.timeIntervalSince(start) < Self.chimeNeededWithin, let chime = sounds.chime {
            let riseAndHold = chime.count
            let holdStart = AudioBuffer.sampleCount(Self.chimeRise, sampleRate)
            let held = max(1, riseAndHold - holdStart)
            let since = start.timeIntervalSince(alarmAt) * rate
            for offset in 0..<count {
                let position = Int((since + Double(offset)).rounded(.down))
                guard position >= 0 else { continue }
                let index = position < riseAndHold ? position : holdStart + (position - holdStart) % held
                output[offset] += chime[index]
            }
        }
        for index in output.indices { output[index] = max(-1, min(1, output[index])) }
        return output
    }

    /// The chime and the rooms' loops at one rate, made once for every night stream of the process,
    /// on a queue of their own: a stream never waits for them (what is not made yet is silent, and
    /// `prepare` makes them when the person opens Bedside, long before the alarm).
    final class Sounds: @unchecked Sendable {
        let sampleRate: Int
        private let lock = NSLock()
        private var rooms: [RoomSound: [Float]] = [:]
        private var madeChime: [Float]?
        private var asked: Set<String> = []
        let making = DispatchQueue(label: "reverie.night-sounds", qos: .utility)
        private static let lock = NSLock()
        nonisolated(unsafe) private static var byRate: [Int: Sounds] = [:]

        static func at(_ sampleRate: Int) -> Sounds {
            lock.withLock {
                if let sounds = byRate[sampleRate] { return sounds }
                let sounds = Sounds(sampleRate: sampleRate)
                byRate[sampleRate] = sounds
                return sounds
            }
        }

        private init(sampleRate: Int) { self.sampleRate = sampleRate }

        /// The rising chime, or nil while it is being made (asked for now if it was not).
        var chime: [Float]? {
            lock.withLock {
                if madeChime == nil, asked.insert("chime").inserted {
                    making.async {
                        let made = AlarmChime.render(rise: NightMix.chimeRise, hold: NightMix.chimeHold, sampleRate: self.sampleRate).samples
                        self.lock.withLock { self.madeChime = made }
                    }
                }
                return madeChime
            }
        }

        /// The room's seamless minute at this rate (empty for silence), or nil while it is being made.
        func room(_ room: RoomSound) -> [Float]? {
            if room == .silence { return [] }
            return lock.withLock {
                if rooms[room] == nil, asked.insert(room.rawValue).inserted {
                    making.async {
                        let loop = room.render(seconds: 60, sampleRate: self.sampleRate).samples
                        self.lock.withLock { self.rooms[room] = loop }
                    }
                }
                return rooms[room]
            }
        }
    }
}
