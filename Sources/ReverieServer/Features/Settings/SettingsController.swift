import AudioRender
import Bedside
import Foundation
import ReverieAPI
import Vapor

/// The signed-in user's settings: the theme, the icon for new installs, and Bedside's.
///
/// Each field is its own row (`theme`, `bedside.<field>`), so two devices changing different
/// fields at once both keep their change.
struct SettingsController: RouteCollection {
    let settings: Store<any SettingsRepository>
    let entitlements: Entitlements
    /// The rooms Bedside has: one for each sound `AudioRender` makes.
    static let rooms = RoomSound.allCases.map(\.rawValue)
    static let bedsideDefaults = BedsideSettings(contentMode: "off", lastContentMode: "meditation", rate: 1, captions: true, roomVolume: 0.5,
                                                 room: "rain", contentCompletedSuccessfully: false,
                                                 alarm: BedsideAlarm(time: "07:00", enabled: false, days: []), alarmAt: 0)

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "settings", use: get)
        routes.patch("api", "settings", use: update)
    }

    func get(req: Request) async throws -> UserSettings {
        try await load(req)
    }

    /// Saves the fields present in the body and answers with all settings.
    func update(req: Request) async throws -> UserSettings {
        let patch = try req.content.decode(UserSettings.self)
        var values: [String: String] = [:]
        if let theme = patch.theme {
            if theme.isPremium { try entitlements.requirePlus(req, for: "Premium themes") }
            values["theme"] = try Self.json(theme)
        }
        if let icon = patch.icon {
            if icon.isPremium { try entitlements.requirePlus(req, for: "App icons") }
            values["icon"] = try Self.json(icon)
        }
        if let bedside = patch.bedside {
            try Self.validate(bedside)
            // Each field present becomes its own row: encode, then split the object by key.
            let object = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(bedside)) as? [String: Any] ?? [:]
            for (key, value) in object {
                values["bedside.\(key)"] = String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
            }
        }
        if !values.isEmpty {
            try await settings.on(req).save(values, ownedBy: req.user)
        }
        return try await load(req)
    }

    private func load(_ req: Request) async throws -> UserSettings {
        let stored = try await settings.on(req).all(ownedBy: req.user)
        // A stored value this version cannot read (an older theme name) falls back to the default.
        // A premium theme or icon stays only while the account has Plus.
        let plus = try entitlements.hasPlus(req)
        let theme = stored["theme"].flatMap { try? JSONDecoder().decode(Theme.self, from: Data($0.utf8)) }.flatMap { !$0.isPremium || plus ? $0 : nil }
        let icon = stored["icon"].flatMap { try? JSONDecoder().decode(AppIcon.self, from: Data($0.utf8)) }.flatMap { !$0.isPremium || plus ? $0 : nil }
        return UserSettings(theme: theme ?? .default, icon: icon ?? .classic, bedside: Self.bedside(from: stored))
    }

    /// Bedside's settings from the stored rows (`bedside.<field>`), defaults for the rest.
    static func bedside(from stored: [String: String]) -> BedsideSettings {
        var bedside = bedsideDefaults
        for (key, value) in stored where key.hasPrefix("bedside.") {
            let field = String(key.dropFirst("bedside.".count))
            guard let one = try? JSONDecoder().decode(BedsideSettings.self, from: Data("{\"\(field)\":\(value)}".utf8)) else { continue }
            bedside.merge(one)
        }
        if bedside.voice == "" { bedside.voice = nil }
        return bedside
    }

    /// The last moment `alarmAt` may name: 2100-01-01.
    static let maximumAlarmAt: Double = 4_102_444_800_000

    /// A 400 naming the first field out of its range.
    static func validate(_ bedside: BedsideSettings) throws {
        func invalid(_ message: String) -> APIError { APIError(.badRequest, code: "invalid_field", message) }
        if let mode = bedside.contentMode, ContentModeMachine.Mode(rawValue: mode) == nil {
            throw invalid("bedside.contentMode: off, meditation or poetry.")
        }
        if let mode = bedside.lastContentMode, ContentModeMachine.Mode(rawValue: mode)?.kind == nil {
            throw invalid("bedside.lastContentMode: meditation or poetry.")
        }
        if let voice = bedside.voice, voice.count > 100 { throw invalid("bedside.voice: at most 100 characters (\"\" for the default voice).") }
        if let rate = bedside.rate, !(0.8...1.2).contains(rate) { throw invalid("bedside.rate: from 0.8 to 1.2.") }
        if let volume = bedside.roomVolume, !(0...1).contains(volume) { throw invalid("bedside.roomVolume: from 0 to 1.") }
        if let room = bedside.room, !rooms.contains(room) { throw invalid("bedside.room: one of \(rooms.joined(separator: ", ")).") }
        if let at = bedside.alarmAt, !(0...maximumAlarmAt).contains(at) || at.rounded() != at {
            throw invalid("bedside.alarmAt: whole milliseconds since 1970, before 2100 (0 for none).")
        }
        if let alarm = bedside.alarm {
            // The rule the alarm rings by reads it; the settings keep it in one spelling (07:30).
            guard alarm.time.count == 5, alarm.time.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":") }), AlarmRule(time: alarm.time, enabled: alarm.enabled, days: []) != nil else {
                throw invalid("bedside.alarm.time: HH:MM, like 07:30.")
            }
            guard AlarmRule(time: alarm.time, enabled: alarm.enabled, days: alarm.days) != nil, Set(alarm.days).count == alarm.days.count else {
                throw invalid("bedside.alarm.days: weekdays 0 (Sunday) to 6, each once.")
            }
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension BedsideSettings {
    /// Takes every field `other` has.
    mutating func merge(_ other: BedsideSettings) {
        contentMode = other.contentMode ?? contentMode
        lastContentMode = other.lastContentMode ?? lastContentMode
        voice = other.voice ?? voice
        rate = other.rate ?? rate
        captions = other.captions ?? captions
        roomVolume = other.roomVolume ?? roomVolume
        room = other.room ?? room
        clock24 = other.clock24 ?? clock24
        contentCompletedSuccessfully = other.contentCompletedSuccessfully ?? contentCompletedSuccessfully
        alarm = other.alarm ?? alarm
        alarmAt = other.alarmAt ?? alarmAt
    }
}
