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
        let trimmed = text.trimmed
        guard !trimmed.isEmpty, trimmed.count < 80 else { return nil }
        if let iso = iso8601(trimmed) { return iso }
        return rfc822(trimmed)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = ["GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5,
                                       "MST": -7, "MDT": -6, "PST": -8, "PDT": -7, "BST": 1, "CET": 1, "CEST": 2]

    static func rfc822(_ text: String) -> Date? {
        // Read as bytes, the words as slices: a feed has thousands of dates.
        let bytes = Array(text.utf8)
        var words: [ArraySlice<UInt8>] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x2C { index += 1 }
            let begin = index
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x09, bytes[index] != 0x2C { index += 1 }
            if index > begin { words.append(bytes[begin..<index]) }
        }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        func number(_ word: ArraySlice<UInt8>) -> Int? {
            guard !word.isEmpty, word.count <= 9 else { return nil }
            var value = 0
            for byte in word {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        // A weekday, in any spelling, before the day: anything alphabetic that is not a month.
        if let first = words.first, let letter = first.first, isLetter(letter), month(first) == nil {
            words.removeFirst()
        }
        guard words.count >= 3 else { return nil }
        var day: Int?, month: Int?
        // `03 Jun 2008` or, a quirk, `Jun 03 2008`.
        if let d = number(words[0]) {
            day = d
            month = Self.month(words[1])
        } else if let m = Self.month(words[0]), let d = number(words[1]) {
            month = m
            day = d
        }
        guard let day, let month, (1...31).contains(day), var year = number(words[2]) else { return nil }
        if words[2].count == 2 { year += year < 70 ? 2000 : 1900 }
        var hour = 0, minute = 0, second = 0, offset = 0
        var rest = words.dropFirst(3)
        if let time = rest.first, time.contains(0x3A) {
            let parts = time.split(separator: 0x3A, omittingEmptySubsequences: false).map(number)
            guard parts.count >= 2, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
            hour = parts[0]!
            minute = parts[1]!
            second = parts.count > 2 ? parts[2]! : 0
            rest = rest.dropFirst()
        }
        if let zone = rest.first, let sign = zone.first {
            if sign == 0x2B || sign == 0x2D {
                let digits = zone.dropFirst().filter { $0 != 0x3A }
                guard digits.count == 4, let value = number(ArraySlice(digits)) else { return nil }
                offset = (value / 100 * 3600 + value % 100 * 60) * (sign == 0x2D ? -1 : 1)
            } else if let hours = zones[String(decoding: zone, as: UTF8.self).uppercased()] {
                offset = hours * 3600
            }
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: Double(second), offset: offset)
    }

    /// A month from its name's first three letters, in any case (`Jun`, `JUNE`, `Jun.`).
    static func month(_ word: ArraySlice<UInt8>) -> Int? {
        guard word.count >= 3, word.dropFirst(3).allSatisfy({ (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || $0 == 0x2E }) else { return nil }
        let a = word[word.startIndex] | 0x20, b = word[word.startIndex + 1] | 0x20, c = word[word.startIndex + 2] | 0x20
        for (index, name) in monthBytes.enumerated() where name[0] == a && name[1] == b && name[2] == c { return index + 1 }
        return nil
    }

    static let monthBytes = months.map { Array($0.utf8) }

    /// The moment, in the proleptic Gregorian calendar, by arithmetic (days from the civil date,
    /// as Howard Hinnant's algorithm counts them): Calendar and DateComponents cost a hundred times
    /// more, and a feed has thousands of dates. Nil for a day the month does not have.
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Double, offset: Int) -> Date? {
        guard (1...12).contains(month), (1...9999).contains(year) else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }


    /// `2008-06-03T09:39:21Z`, with fractions, offsets, or only a date.
    static func iso8601(_ text: String) -> Date? {
        guard text.count >= 10, text.prefix(4).allSatisfy(\.isNumber), text.dropFirst(4).first == "-" else { return nil }
        if let date = quickISO8601(text) { return date }
        // A date alone that is not a real day (2023-02-29) is no date; the formatter would roll it on.
        if text.count == 10 { return nil }
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

    /// The common shapes read by hand (`YYYY-MM-DD`, then `THH:MM[:SS[.fff]]` and `Z` or `±HH[:]MM`);
    /// anything else goes to the formatters.
    static func quickISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ length: Int) -> Int? {
            guard from + length <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<(from + length)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 45, let month = number(5, 2), bytes.count > 7, bytes[7] == 45, let day = number(8, 2) else { return nil }
        if bytes.count == 10 { return date(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offset: 0) }
        guard bytes.count >= 16, bytes[10] == 84 || bytes[10] == 116, let hour = number(11, 2), bytes[13] == 58, let minute = number(14, 2),
              hour < 24, minute < 60 else { return nil }
        var index = 16
        var second = 0.0
        if index < bytes.count, bytes[index] == 58 {
            guard let whole = number(index + 1, 2), whole <= 60 else { return nil }
            second = Double(whole)
            index += 3
            if index < bytes.count, bytes[index] == 46 {
                var scale = 0.1
                index += 1
                let start = index
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    second += Double(bytes[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
        }
        guard index < bytes.count else { return nil }   // no zone: the formatters' quirk handling decides
        var offset = 0
        switch bytes[index] {
        case 90, 122:
            guard index + 1 == bytes.count else { return nil }
        case 43, 45:
            let sign = bytes[index] == 45 ? -1 : 1
            guard let hours = number(index + 1, 2) else { return nil }
            var at = index + 3
            if at < bytes.count, bytes[at] == 58 { at += 1 }
            guard let minutes = number(at, 2), at + 2 == bytes.count, hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offset: offset)
    }

    private static func formatterWithZone(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text + "Z")
    }

    /// `itunes:duration`: `1:02:03`, `62:03` (minutes past 59 happen), `3723`, `3723.5`; nil for
    /// anything else (some feeds write "TBD" or an empty string).
    public static func duration(_ text: String) -> Double? {
        let trimmed = text.trimmed
        guard !trimmed.isEmpty, trimmed.count < 20 else { return nil }
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return seconds <= longestDuration ? seconds : nil }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let seconds = parts.reduce(0) { $0 * 60 + $1! }
        return seconds.isFinite && seconds <= longestDuration ? seconds : nil
    }

    /// No episode is longer (a year): a length past it is the feed's mistake, and read as none.
    public static let longestDuration: Double = 365 * 24 * 3600
}
