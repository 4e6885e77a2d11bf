import Vapor

/// Query parameters read into bounded values. A number from a request is never trusted to be
/// small: anything outside its range, or not a number at all, answers 400 naming the field, so
/// no arithmetic on it can trap (`abs(Int.min)` once took the whole server down).
extension Request {
    /// An integer in `range`; nil when the parameter is absent.
    func queryInteger(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try queryText(name) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw APIError(.badRequest, code: "invalid_field", "\(name): must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }

    /// A finite number in `range`; nil when the parameter is absent.
    func queryDouble(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = try queryText(name) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value) else {
            throw APIError(.badRequest, code: "invalid_field", "\(name): must be a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()).")
        }
        return value
    }

    /// `true`/`false` (also `1`/`0`); nil when absent.
    func queryBoolean(_ name: String) throws -> Bool? {
        guard let text = try queryText(name) else { return nil }
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw APIError(.badRequest, code: "invalid_field", "\(name): must be true or false.")
        }
    }

    /// `?timeZone=Europe/Paris`: the person's time zone (UTC when absent); 400 for a name that is not one.
    func queryTimeZone() throws -> TimeZone {
        let name = try queryString("timeZone", maximumLength: 100) ?? "UTC"
        guard let zone = TimeZone(identifier: name) else {
            throw APIError(.badRequest, code: "invalid_time_zone", "timeZone: “\(name)” is not a time zone name like Europe/Paris.")
        }
        return zone
    }

    /// A text parameter of at most `maximumLength` characters; nil when absent.
    func queryString(_ name: String, maximumLength: Int) throws -> String? {
        guard let text = try queryText(name) else { return nil }
        guard text.count <= maximumLength else {
            throw APIError(.badRequest, code: "invalid_field", "\(name): at most \(maximumLength) characters.")
        }
        return text
    }

    private func queryText(_ name: String) throws -> String? {
        guard url.query != nil else { return nil }
        do {
            return try query.get(String?.self, at: name)
        } catch {
            throw APIError(.badRequest, code: "invalid_field", "\(name): give it once, as plain text.")
        }
    }
}
