import Foundation

/// What podcast apps send and read in the gpodder.net API v2 (and Nextcloud's gpoddersync, which
/// borrows its episode actions): read from outside bytes with every size checked, so the server
/// writes nothing from a batch until all of it is known good.
public enum GpodderSync {
    /// The most actions or subscription changes one request may carry (the bench sends 10,000).
    public static let maxBatch = 25_000
    /// The longest URL or guid kept.
    public static let maxURLLength = 2_000
    /// Positions and lengths past this (about 115 days) are not an episode's.
    public static let maxSeconds = 10_000_000

    /// Why a request's body could not be taken.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The things an app says it did to an episode.
    public enum Action: String, Codable, Sendable, CaseIterable {
        case download, play, delete, new, flattr
    }

    /// One episode action as an app uploads it and reads it back.
    public struct EpisodeAction: Equatable, Sendable {
        public var podcast: String
        public var episode: String
        public var guid: String?
        public var device: String
        public var action: Action
        /// When it happened on the device; nil when the app did not say.
        public var timestamp: Date?
        /// For `play`: where playback started, where it is, and the episode's length, in seconds.
        public var started: Int?
        public var position: Int?
        public var total: Int?

        public init(podcast: String, episode: String, guid: String? = nil, device: String, action: Action, timestamp: Date?,
                    started: Int? = nil, position: Int? = nil, total: Int? = nil) {
            self.podcast = podcast
            self.episode = episode
            self.guid = guid
            self.device = device
            self.action = action
            self.timestamp = timestamp
            self.started = started
            self.position = position
            self.total = total
        }

        /// As the API answers it (`timestamp` in gpodder's form, UTC without a zone).
        public var json: [String: Any] {
            var object: [String: Any] = ["podcast": podcast, "episode": episode, "device": device, "action": action.rawValue]
            if let guid { object["guid"] = guid }
            if let timestamp { object["timestamp"] = GpodderSync.format(timestamp) }
            if action == .play {
                if let started { object["started"] = started }
                if let position { object["position"] = position }
                if let total { object["total"] = total }
            }
            return object
        }
    }

    // MARK: - Reading

    /// A device id as gpodder.net allows them: letters, digits, `.`, `-` and `_`, 1 to 64.
    public static func isDeviceID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2E || byte == 0x2D || byte == 0x5F
        }
    }

    /// An uploaded list of episode actions (`[{"podcast", "episode", "action", …}]`, or Nextcloud's
    /// `{"actions": […]}`). Actions without a device are `device`'s.
    public static func episodeActions(_ data: Data, device: String = "default") throws -> [EpisodeAction] {
        let list: [Any]
        switch try json(data) {
        case let array as [Any]: list = array
        case let object as [String: Any]:
            guard let actions = object["actions"] as? [Any] else { throw Refusal("Send a JSON list of episode actions.") }
            list = actions
        default: throw Refusal("Send a JSON list of episode actions.")
        }
        guard list.count <= maxBatch else {
            throw Refusal("At most \(maxBatch) episode actions in one upload; this one has \(list.count). Send them in parts.")
        }
        return try list.enumerated().map { index, item in
            guard let object = item as? [String: Any] else { throw Refusal("Action \(index + 1) is not a JSON object.") }
            return try episodeAction(object, number: index + 1, device: device)
        }
    }

    private static func episodeAction(_ object: [String: Any], number: Int, device defaultDevice: String) throws -> EpisodeAction {
        func text(_ key: String, required: Bool) throws -> String? {
            // Empty is absent (Kasts sends `"device": ""`).
            guard let value = object[key], !(value is NSNull), (value as? String)?.isEmpty != true else {
                if required { throw Refusal("Action \(number) has no \(key).") }
                return nil
            }
            guard let string = value as? String, !string.isEmpty, string.utf8.count <= maxURLLength else {
                throw Refusal("Action \(number): \(key) must be text of 1 to \(maxURLLength) bytes.")
            }
            return string
        }
        func seconds(_ key: String) throws -> Int? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let double = (value as? NSNumber)?.doubleValue else {
                throw Refusal("Action \(number): \(key) must be a number of seconds.")
            }
            // Apps send -1 for "not known" (AntennaPod before it has a length).
            if double == -1 { return nil }
            guard double.isFinite, double >= 0, double <= Double(maxSeconds) else {
                throw Refusal("Action \(number): \(key) must be between 0 and \(maxSeconds) seconds.")
            }
            return Int(double)
        }
        let name = try text("action", required: true)!.lowercased()
        guard let action = Action(rawValue: name) else {
            throw Refusal("Action \(number): \(name) is not one of download, play, delete, new or flattr.")
        }
        let device = try text("device", required: false) ?? defaultDevice
        guard isDeviceID(device) else { throw Refusal("Action \(number): the device id may hold letters, digits, “.”, “-” and “_”, 1 to 64 of them.") }
        var timestamp: Date?
        if let stamp = try text("timestamp", required: false) {
            guard let date = parse(stamp) else { throw Refusal("Action \(number): the timestamp \(stamp) is not an ISO 8601 time.") }
            timestamp = date
        }
        var made = EpisodeAction(podcast: try text("podcast", required: true)!, episode: try text("episode", required: true)!,
                                 guid: try text("guid", required: false), device: device, action: action, timestamp: timestamp)
        if action == .play {
            made.started = try seconds("started")
            made.position = try seconds("position")
            made.total = try seconds("total")
        }
        return made
    }

    /// An uploaded subscription change (`{"add": [...], "remove": [...]}`).
    public static func subscriptionChanges(_ data: Data) throws -> (add: [String], remove: [String]) {
        guard let object = try json(data) as? [String: Any] else { throw Refusal("Send {\"add\": [...], \"remove\": [...]}.") }
        let add = try urls(object["add"], "add"), remove = try urls(object["remove"], "remove")
        guard add.count + remove.count <= maxBatch else {
            throw Refusal("At most \(maxBatch) subscription changes in one upload. Send them in parts.")
        }
        if let both = Set(add).intersection(remove).first { throw Refusal("\(both) is both added and removed.") }
        return (add, remove)
    }

    /// A whole subscription list in the simple API's formats: `json` (a list of URLs), `txt` (one
    /// per line) or `opml`.
    public static func subscriptionList(_ data: Data, format: String) throws -> [String] {
        let found: [String]
        switch format {
        case "json": found = try urls(try json(data), "the list")
        case "txt":
            guard let text = String(data: data, encoding: .utf8) else { throw Refusal("The list is not UTF-8 text.") }
            found = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case "opml":
            do { found = try OPML.parse(data).map(\.feedURL) } catch let error as FeedError { throw Refusal(error.description) }
        default: throw Refusal("The format is one of opml, json or txt.")
        }
        guard found.count <= maxBatch else { throw Refusal("At most \(maxBatch) podcasts in one list.") }
        if let long = found.first(where: { $0.utf8.count > maxURLLength }) { throw Refusal("\(long.prefix(80))… is longer than \(maxURLLength) bytes.") }
        return found
    }

    private static func urls(_ value: Any?, _ name: String) throws -> [String] {
        guard let value, !(value is NSNull) else { return [] }
        guard let list = value as? [Any], list.count <= maxBatch else { throw Refusal("\(name): a list of at most \(maxBatch) URLs.") }
        return try list.map { item in
            guard let url = item as? String, !url.isEmpty, url.utf8.count <= maxURLLength else {
                throw Refusal("\(name): each entry is a URL of 1 to \(maxURLLength) bytes.")
            }
            return url
        }
    }

    private static func json(_ data: Data) throws -> Any {
        guard data.count <= 64 << 20 else { throw Refusal("The body is too large.") }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw Refusal("The body is not JSON.")
        }
    }

    /// A feed's address as Reverie keeps it (http or https, `feed:` and the like unwrapped), or
    /// nil for one no app could play.
    public static func cleanURL(_ raw: String) -> String? {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = FeedParser.absoluteURL(OPML.appScheme(trimmed)) else { return nil }
        return url
    }

    // MARK: - Times

    /// gpodder's time, `2009-12-12T09:00:00` (UTC); also read with a zone or fractions.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= 40 else { return nil }
        if let date = plainUTC(Array(trimmed.utf8)) { return date }
        // With a zone first: the zoneless reading would take a time with one and leave its zone out.
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], plainTime] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "UTC")
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = plainTime
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    /// `2009-12-12T09:00:00` or with a `Z`, read without a formatter (an upload holds thousands).
    private static func plainUTC(_ bytes: [UInt8]) -> Date? {
        guard bytes.count == 19 || (bytes.count == 20 && bytes[19] == UInt8(ascii: "Z")) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              hour < 24, minute < 60, second < 61 else { return nil }
        return FeedDates.date(year: year, month: month, day: day, hour: hour, minute: minute, second: Double(second), offset: 0)
    }

    /// `2009-12-12T09:00:00`: no zone, no fractions.
    private static let plainTime: ISO8601DateFormatter.Options = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
}
