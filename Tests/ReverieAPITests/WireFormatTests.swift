import Foundation
import ReverieAPI
import Testing

@Suite("Wire format")
struct WireFormatTests {
    @Test("the error body is {\"error\":{\"code\",\"message\"}}")
    func errorShape() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(APIErrorBody(code: "not_found", message: "No token with that id.")), as: UTF8.self)
        #expect(json == #"{"error":{"code":"not_found","message":"No token with that id."}}"#)
    }

    @Test("themes keep the names the Write design gives them; the two after them are Plus")
    func themeNames() {
        #expect(Theme.allCases.map(\.rawValue) == ["RetroFuturistic", "PlainLight", "PlainDark", "DirtyDishes", "VelvetHour", "PaperMoon"])
        #expect(Theme.allCases.filter(\.isPremium) == [.velvetHour, .paperMoon])
        #expect(Theme.default == .retroFuturistic)
        #expect(AppIcon.allCases.filter { !$0.isPremium } == [.classic])
    }

    @Test("a Wind Down item is the catalog entry with progress and audio; absent optionals are left out")
    func windDownItemShape() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let entry = SleepItemInfo(id: "yoga_nidra_10min", title: "Yoga Nidra", narrator: "Reverie", duration: 600, type: "yogaNidra",
                                  description: "Rest.", audio: "yoga_nidra_sleep_10min", category: nil, technique: nil)
        let item = WindDownItem(item: entry, progress: 0.5, position: 300, comingSoon: false,
                                audio: .init(state: "ready", url: "/api/winddown/yoga_nidra_10min/audio", detail: nil, source: "bundled", originalName: nil))
        let json = String(decoding: try encoder.encode(item), as: UTF8.self)
        #expect(json == #"{"audio":{"source":"bundled","state":"ready","url":"\/api\/winddown\/yoga_nidra_10min\/audio"},"comingSoon":false,"#
            + #""item":{"audio":"yoga_nidra_sleep_10min","description":"Rest.","duration":600,"id":"yoga_nidra_10min","narrator":"Reverie","#
            + #""title":"Yoga Nidra","type":"yogaNidra"},"position":300,"progress":0.5}"#)
    }

    @Test("settings decode with every field optional")
    func partialSettings() throws {
        #expect(try JSONDecoder().decode(UserSettings.self, from: Data("{}".utf8)) == UserSettings(theme: nil))
        #expect(try JSONDecoder().decode(UserSettings.self, from: Data(#"{"theme":"DirtyDishes"}"#.utf8)).theme == .dirtyDishes)
    }
}
