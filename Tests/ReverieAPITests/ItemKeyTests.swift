import ReverieAPI
import SharedCases
import Testing

/// Item keys read and written as `Web/item-key.js` reads and writes them: both answer
/// `Tests/Shared/item-key-cases.json`.
@Suite("Item keys")
struct ItemKeyTests {
    struct Cases: Decodable {
        struct Case: Decodable, CustomTestStringConvertible {
            var text: String
            var key: String?
            var kind: String?
            var id: String?
            var part: Int?
            var testDescription: String { "“\(text.prefix(60))”" }
        }
        var cases: [Case]
    }

    static let cases = (try? SharedCases.load("item-key-cases.json", as: Cases.self).cases) ?? []

    @Test("the case file is read")
    func loaded() throws {
        #expect(try SharedCases.load("item-key-cases.json", as: Cases.self).cases.count > 20)
    }

    @Test("each key is read as the shared cases say, and written in one spelling", arguments: cases)
    func reads(_ example: Cases.Case) {
        let key = ItemKey(example.text)
        #expect(key?.text == example.key)
        guard let key else { return }
        #expect(key.kind.rawValue == example.kind && key.id == example.id && key.part == example.part)
        #expect(ItemKey(key.text) == key, "the written key reads back as itself")
        #expect(key.whole.part == nil && key.whole.id == key.id)
    }
}
