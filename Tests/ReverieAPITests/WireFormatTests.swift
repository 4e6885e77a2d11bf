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

    @Test("settings decode with every field optional")
    func partialSettings() throws {
        #expect(try JSONDecoder().decode(UserSettings.self, from: Data("{}".utf8)) == UserSettings(theme: nil))
        #expect(try JSONDecoder().decode(UserSettings.self, from: Data(#"{"theme":"DirtyDishes"}"#.utf8)).theme == .dirtyDishes)
    }
}
