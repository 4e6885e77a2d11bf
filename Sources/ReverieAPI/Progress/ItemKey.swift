import Foundation

/// What a person plays, as listening progress, queues, downloads and played marks all name it:
/// `<kind>:<id>`, and a part of it (a book's chapter, an episode's chapter, a LibriVox section)
/// `<kind>:<id>/<index from 0>`.
///
/// The one parser and the one writer of these keys in Swift; `Web/item-key.js` is its twin, and
/// both answer `Tests/Shared/item-key-cases.json`. A key is always written in small letters (ids
/// are given by the API in small letters, and a key sent in capitals names the same item), so a
/// player finds an item's place, download and saved answers by the key it wrote.
public struct ItemKey: Hashable, Sendable, CustomStringConvertible {
    /// Where the item lives.
    public enum Kind: String, Sendable, CaseIterable {
        /// A Wind Down catalog item: `winddown:<catalog id>`.
        case windDown = "winddown"
        /// A Bedside piece: `bedside:<preset id>`, or `bedside:<uuid>` for one's own.
        case bedside
        /// A library item (a book or a track): `library:<uuid>`, a book's chapter `library:<uuid>/<index>`.
        case library
        /// A LibriVox book streamed: `librivox:<LibriVox id>`, a section `librivox:<LibriVox id>/<index>`.
        case librivox
        /// A podcast episode: `podcast:<episode id>`, a chapter `podcast:<episode id>/<index>`.
        case podcast
        /// A saved article: `article:<article id>`.
        case article

        /// How its keys begin: `podcast:`.
        public var prefix: String { rawValue + ":" }
    }

    /// The longest key read (a catalog id or a UUID, with a part).
    public static let longest = 120
    /// The most parts (chapters, sections) an item has.
    public static let mostParts = 10_000

    public let kind: Kind
    /// The item's id in small letters: a UUID, a catalog or preset id, or a LibriVox number.
    public let id: String
    /// The part's index from 0, or nil for the whole item.
    public let part: Int?

    /// Reads `text`; nil when it names nothing Reverie plays. UUIDs may come in any case.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.longest, let colon = text.firstIndex(of: ":"),
              let kind = Kind(rawValue: String(text[..<colon]).lowercased()) else { return nil }
        let rest = text[text.index(after: colon)...].split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(rest.count) else { return nil }
        var part: Int?
        if rest.count == 2 {
            guard Self.isIndex(rest[1]), let index = Int(rest[1]), index < Self.mostParts,
                  [.library, .librivox, .podcast].contains(kind) else { return nil }
            part = index
        }
        let raw = String(rest[0])
        let id: String
        switch kind {
        case .library, .podcast, .article:
            guard let uuid = UUID(uuidString: raw) else { return nil }
            id = uuid.uuidString.lowercased()
        case .librivox:
            guard Self.isIndex(rest[0]), let number = Int(raw), number > 0 else { return nil }
            id = String(number)
        case .bedside:
            if let uuid = UUID(uuidString: raw) { id = uuid.uuidString.lowercased() } else {
                guard Self.isName(raw) else { return nil }
                id = raw.lowercased()
            }
        case .windDown:
            guard Self.isName(raw) else { return nil }
            id = raw.lowercased()
        }
        (self.kind, self.id, self.part) = (kind, id, part)
    }

    /// An episode's, a library item's or an article's key, and a part of it.
    public init(_ kind: Kind, _ id: UUID, part: Int? = nil) {
        (self.kind, self.id, self.part) = (kind, id.uuidString.lowercased(), part)
    }

    /// A LibriVox book's key, and a section of it.
    public static func librivox(_ number: Int, part: Int? = nil) -> ItemKey {
        ItemKey(kind: .librivox, id: String(number), part: part)
    }

    /// A Wind Down catalog item's key.
    public static func windDown(_ catalogID: String) -> ItemKey {
        ItemKey(kind: .windDown, id: catalogID.lowercased(), part: nil)
    }

    private init(kind: Kind, id: String, part: Int?) {
        (self.kind, self.id, self.part) = (kind, id, part)
    }

    /// The key as written: `podcast:3f2a…`, `library:3f2a…/4`.
    public var text: String { kind.prefix + id + (part.map { "/\($0)" } ?? "") }
    public var description: String { text }

    /// The whole item a part belongs to (itself for a whole item).
    public var whole: ItemKey { ItemKey(kind: kind, id: id, part: nil) }

    /// The id as a UUID, for the kinds named by one.
    public var uuid: UUID? { UUID(uuidString: id) }

    /// Digits only, no sign: `Int("+3")` reads 3, and a key has one spelling.
    private static func isIndex(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A catalog or preset id (`poem.innisfree`): letters, digits, `_`, `-` and `.`.
    private static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }
}
