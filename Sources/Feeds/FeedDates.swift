import Foundation

/// Dates and durations in the forms feeds really use.
public enum FeedDates {
    /// RFC 822 / 2822 as RSS asks for, with the liberties feeds take (quirks, each seen in the wild):
    /// - the weekday left out, or wrong for the date (ignored, never checked);
    /// - two-digit years (`Tue, 03 Jun 08`) — read as 20xx below 70, else 19xx;
    /// - month names in full (`June`) or with a dot (`Jun.`), any case;
    /// - zone names (GMT, UT, Z, EST, EDT, CST, CDT, MST, MDT, PST, PDT), numeric offsets with or
    ///   without a colon, or no zone at all (read as UTC);
    /// - seconds left out (`10:00`);
    /// - ISO 8601 in an RSS `pubDate` (some generators write Atom dates there).
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count < 80 else { return nil }
        if let iso = iso8601(trimmed) { return iso }
        return rfc822(trimmed)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = ["GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
                                       "MST": -7, "MDT": -6, "PST": -8, "PDT": -7, "BST": 1, "CET": 1, "CEST": 2]

    static func rfc822(_ text: String) -> Date? {
        var words = text.replacingOccurrences(of: ",", with: " ").split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        // A weekday (or anything alphabetic) before the day number.
        // A weekday, in any spelling, before the day: anything alphabetic that is not a month.
        if let first = words.first, first.first?.isLetter == true, monthNumber(first) == nil {
            words.removeFirst()
        }
        guard words.count >= 3 else { return nil }
        var day: Int?, month: Int?, year: Int?
        // `03 Jun 2008` or, a quirk, `Jun 03 2008`.
        if let d = Int(words[0]) {
            day = d
            month = monthNumber(words[1])
        } else if let m = monthNumber(words[0]), let d = Int(words[1]) {
            month = m
            day = d
        }
        guard let day, let month, (1...31).contains(day), var y = Int(words[2]) else { return nil }
        if words[2].count == 2 { y += y < 70 ? 2000 : 1900 }
        year = y
        var hour = 0, minute = 0, second = 0, offset = 0
        var rest = Array(words.dropFirst(3))
        if let time = rest.first, time.contains(":") {
            let parts = time.split(separator: ":").map { Int($0) }
            guard parts.count >= 2, parts.allSatisfy({ $0 != nil }) else { return nil }
            hour = parts[0]!
            minute = parts[1]!
            second = parts.count > 2 ? parts[2]! : 0
            rest.removeFirst()
        }
        if let zone = rest.first {
            if let hours = zones[zone.uppercased()] {
                offset = hours * 3600
            } else if let sign = zone.first, sign == "+" || sign == "-" {
                let digits = zone.dropFirst().replacingOccurrences(of: ":", with: "")
                guard digits.count == 4, let value = Int(digits) else { return nil }
                offset = (value / 100 * 3600 + value % 100 * 60) * (sign == "-" ? -1 : 1)
            }
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), let year else { return nil }
        var components = DateComponents(timeZone: TimeZone(secondsFromGMT: 0), year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        components.calendar = Calendar(identifier: .gregorian)
        guard components.isValidDate, let date = components.date else { return nil }
        return date.addingTimeInterval(TimeInterval(-offset))
    }

    static func monthNumber(_ word: String) -> Int? {
        let lower = word.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        guard lower.count >= 3 else { return nil }
        return months.firstIndex(of: String(lower.prefix(3))).map { $0 + 1 }
    }

    /// `2008-06-03T09:39:21Z`, with fractions, offsets, or only a date.
    static func iso8601(_ text: String) -> Date? {
        guard text.count >= 10, text.prefix(4).allSatisfy(\.isNumber), text.dropFirst(4).first == "-" else { return nil }
        // Only a date when only a date is there (the date-only reading would drop a time silently).
        let choices: [ISO8601DateFormatter.Options] = text.count == 10 ? [[.withFullDate]] : [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]]
        for options in choices {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        // A quirk: a space instead of the T, or no zone (read as UTC).
        let mended = text.replacingOccurrences(of: " ", with: "T")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        return formatter.date(from: mended) ?? formatterWithZone(mended)
    }

    private static func formatterWithZone(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text + "Z")
    }

    /// `itunes:duration`: `1:02:03`, `62:03` (minutes past 59 happen), `3723`, `3723.5`; nil for
    /// anything else (some feeds write "TBD" or an empty string).
    public static func duration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count < 20 else { return nil }
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return seconds }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! }
    }
}
