import Foundation

/// What an ID3v2 tag holds that we use.
struct ID3Contents {
    var tags = ParsedTags()
    var artwork: ParsedArtwork?
    var artworkIsFrontCover = false
    /// `CHAP` frames: element id, title, start and end in milliseconds.
    var chapters: [(id: String, title: String, start: UInt32, end: UInt32)] = []
    /// The top-level `CTOC`'s children, in its order, when it is marked ordered.
    var tableOfContents: [String]?
}

/// Reads ID3v2.2, 2.3 and 2.4 tags (id3.org, "ID3 tag version 2.3.0" and "2.4.0-structure" and
/// "-frames", and the "ID3v2 Chapter Frame Addendum") and ID3v1/1.1.
///
/// Sizes come from the file and are checked against the bytes we have; a frame that runs past
/// the tag ends the frame list rather than the whole read (the audio is still playable).
enum ID3Reader {
    /// A tag larger than this is refused (pictures in real files stay well under it).
    static let maxTagBytes = 64 << 20
    static let maxFrames = 20_000
    static let maxNesting = 2

    /// The whole size of the tag whose 10-byte header is `head` (header, body and footer), or nil
    /// when `head` is not an ID3v2 header.
    static func tagSize(_ head: [UInt8]) throws -> Int? {
        guard head.count >= 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 else { return nil }
        guard (2...4).contains(head[3]), head[4] != 0xFF else { throw MediaFormatsError.malformed("an ID3 tag of version 2.\(head[3]), which we do not know") }
        guard let body = syncsafe(head[6..<10]) else { throw MediaFormatsError.malformed("the ID3 tag's size is not a valid number") }
        let footer = head[3] == 4 && head[5] & 0x10 != 0 ? 10 : 0
        return 10 + body + footer
    }

    /// Reads a whole tag (`bytes` begins with its header).
    static func parse(_ bytes: [UInt8]) throws -> ID3Contents {
        guard let total = try tagSize(Array(bytes.prefix(10))) else { throw MediaFormatsError.malformed("no ID3 header") }
        let version = Int(bytes[3])
        let flags = bytes[5]
        var body = Array(bytes[10..<min(bytes.count, total)])
        var contents = ID3Contents()
        if version == 2, flags & 0x40 != 0 { return contents }  // v2.2 "compression": never defined, so unreadable
        // v2.2 and v2.3 unsynchronise the whole tag; v2.4 marks each frame (and sets this flag when all are).
        if version < 4, flags & 0x80 != 0 { body = resynchronised(body[...]) }
        var start = 0
        if version >= 3, flags & 0x40 != 0 {
            guard body.count >= 4 else { throw MediaFormatsError.malformed("the ID3 extended header is cut short") }
            if version == 3 {
                start = 4 + Int(ByteCursor.u32(body, 0))
            } else {
                guard let size = syncsafe(body[0..<4]) else { throw MediaFormatsError.malformed("the ID3 extended header's size is not a valid number") }
                start = size
            }
            guard start <= body.count else { throw MediaFormatsError.malformed("the ID3 extended header is larger than the tag") }
        }
        var frameCount = 0
        try frames(body, from: start, to: body.count, version: version, tagUnsynchronised: version == 4 && flags & 0x80 != 0,
                   depth: 0, count: &frameCount, into: &contents)
        return contents
    }

    /// ID3v1 (and v1.1's track number) from a file's last 128 bytes.
    static func version1(_ tail: [UInt8]) -> ParsedTags? {
        guard tail.count == 128, tail[0] == 0x54, tail[1] == 0x41, tail[2] == 0x47 else { return nil }
        func field(_ range: Range<Int>) -> String? {
            TextDecoding.cleaned(TextDecoding.latin1(tail[range].prefix { $0 != 0 }))
        }
        let track = tail[125] == 0 && tail[126] != 0 ? Int(tail[126]) : nil
        return ParsedTags(title: field(3..<33), artist: field(33..<63), album: field(63..<93), year: field(93..<97),
                          description: field(97..<(track == nil ? 127 : 125)), track: track)
    }

    // MARK: - Frames

    private static func frames(_ body: [UInt8], from: Int, to: Int, version: Int, tagUnsynchronised: Bool,
                               depth: Int, count: inout Int, into contents: inout ID3Contents) throws {
        let idLength = version == 2 ? 3 : 4
        let headerLength = version == 2 ? 6 : 10
        var offset = from
        while offset + headerLength <= to {
            let idBytes = body[offset..<offset + idLength]
            // Padding, or garbage: frame ids are capital letters and digits.
            guard idBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) else { break }
            count += 1
            guard count <= maxFrames else { throw MediaFormatsError.tooLarge("more than \(maxFrames) ID3 frames") }
            let id = TextDecoding.latin1(idBytes)
            var size: Int
            var formatFlags: UInt8 = 0
            switch version {
            case 2:
                size = Int(body[offset + 3]) << 16 | Int(body[offset + 4]) << 8 | Int(body[offset + 5])
            case 3:
                size = Int(ByteCursor.u32(body, offset + 4))
                formatFlags = body[offset + 9]
            default:
                // Quirk found in the wild: some v2.4 writers (old iTunes) store plain sizes. When the
                // syncsafe reading does not land on a frame or the end but the plain one does, use it.
                let plain = Int(ByteCursor.u32(body, offset + 4))
                size = syncsafe(body[offset + 4..<offset + 8]) ?? plain
                if size != plain, !lands(body, at: offset + headerLength + size, to: to), lands(body, at: offset + headerLength + plain, to: to) {
                    size = plain
                }
                formatFlags = body[offset + 9]
            }
            let dataStart = offset + headerLength
            guard size <= to - dataStart else { break }  // runs past the tag: keep what was read
            offset = dataStart + size
            var data = body[dataStart..<dataStart + size]
            if version == 3 {
                if formatFlags & 0xC0 != 0 { continue }  // compressed or encrypted: not for us
                if formatFlags & 0x20 != 0 { data = data.dropFirst(1) }  // group id
            } else if version == 4 {
                if formatFlags & 0x0C != 0 { continue }  // compressed or encrypted
                if formatFlags & 0x40 != 0 { data = data.dropFirst(1) }  // group id
                if formatFlags & 0x01 != 0 { data = data.dropFirst(4) }  // data length indicator
                if formatFlags & 0x02 != 0 || tagUnsynchronised { data = resynchronised(data)[...] }
            }
            try frame(id: canonical(id), data: Array(data), version: version, depth: depth, count: &count, into: &contents)
        }
    }

    /// Whether a frame header or the end of the frames is at `offset`.
    private static func lands(_ body: [UInt8], at offset: Int, to: Int) -> Bool {
        if offset == to { return true }
        guard offset + 4 <= to else { return false }
        return body[offset] == 0 || body[offset..<offset + 4].allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }
    }

    /// v2.2's three-letter ids under their v2.3 names.
    private static func canonical(_ id: String) -> String {
        switch id {
        case "TT2": "TIT2"
        case "TP1": "TPE1"
        case "TP2": "TPE2"
        case "TAL": "TALB"
        case "TYE": "TYER"
        case "TRK": "TRCK"
        case "TPA": "TPOS"
        case "COM": "COMM"
        case "PIC": "PIC"
        default: id
        }
    }

    private static func frame(id: String, data: [UInt8], version: Int, depth: Int, count: inout Int, into contents: inout ID3Contents) throws {
        switch id {
        case "TIT2": contents.tags.title = text(data)
        case "TPE1": contents.tags.artist = text(data)
        case "TPE2": contents.tags.albumArtist = text(data)
        case "TALB": contents.tags.album = text(data)
        case "TDRC", "TYER": contents.tags.year = contents.tags.year ?? text(data)
        case "TRCK": contents.tags.track = position(text(data))
        case "TPOS": contents.tags.disc = position(text(data))
        case "COMM": if contents.tags.description == nil { contents.tags.description = comment(data) }
        case "TXXX":
            // ffmpeg writes a "comment" this way; others write "description".
            guard let encoding = data.first else { return }
            var reader = ByteCursor(data, from: 1)
            let name = decode(terminated(&reader, encoding: encoding), encoding: encoding).lowercased()
            if ["comment", "description"].contains(name), contents.tags.description == nil {
                contents.tags.description = TextDecoding.cleaned(decode(terminated(&reader, encoding: encoding), encoding: encoding))
            }
        case "APIC", "PIC": picture(data, version2: id == "PIC", into: &contents)
        case "CHAP" where depth < maxNesting:
            var cursor = ByteCursor(data)
            let element = TextDecoding.latin1(cursor.latin1CString())
            guard cursor.remaining >= 16 else { return }
            let start = try cursor.u32(), end = try cursor.u32()
            try cursor.skip(8)
            var inner = ID3Contents()
            try frames(data, from: cursor.position, to: data.count, version: version, tagUnsynchronised: false,
                       depth: depth + 1, count: &count, into: &inner)
            contents.chapters.append((id: element, title: inner.tags.title ?? "", start: start, end: end))
        case "CTOC" where depth < maxNesting:
            var cursor = ByteCursor(data)
            _ = cursor.latin1CString()
            let flags = try cursor.u8("CTOC")
            let entries = try cursor.u8("CTOC")
            var children: [String] = []
            for _ in 0..<entries where !cursor.isAtEnd { children.append(TextDecoding.latin1(cursor.latin1CString())) }
            // The top-level table (flag 0x02) in its own order (flag 0x01) is the playing order.
            if flags & 0x02 != 0, flags & 0x01 != 0, contents.tableOfContents == nil { contents.tableOfContents = children }
        default: break
        }
    }

    // MARK: - Values

    /// A text frame's first value.
    private static func text(_ data: [UInt8]) -> String? {
        guard let encoding = data.first else { return nil }
        let value = data.dropFirst()
        var reader = ByteCursor(Array(value))
        return TextDecoding.cleaned(decode(terminated(&reader, encoding: encoding), encoding: encoding))
    }

    /// `COMM`: encoding, language, a short description, then the text.
    private static func comment(_ data: [UInt8]) -> String? {
        guard data.count > 4 else { return nil }
        let encoding = data[0]
        var reader = ByteCursor(data, from: 4)
        _ = terminated(&reader, encoding: encoding)
        return TextDecoding.cleaned(decode(reader.bytes[reader.position..<reader.end], encoding: encoding))
    }

    /// `APIC` (v2.3+: a MIME type) or `PIC` (v2.2: a three-letter format); the front cover (type 3) wins.
    private static func picture(_ data: [UInt8], version2: Bool, into contents: inout ID3Contents) {
        guard let encoding = data.first, !contents.artworkIsFrontCover else { return }
        var reader = ByteCursor(data, from: 1)
        var mime: String
        if version2 {
            guard reader.remaining >= 3, let format = try? reader.take(3) else { return }
            mime = TextDecoding.latin1(format).uppercased() == "PNG" ? "image/png" : "image/jpeg"
        } else {
            mime = TextDecoding.latin1(reader.latin1CString()).lowercased()
        }
        guard let kind = try? reader.u8() else { return }
        _ = terminated(&reader, encoding: encoding)
        let image = reader.bytes[reader.position..<reader.end]
        guard !image.isEmpty else { return }
        if mime.isEmpty || !mime.contains("/") { mime = Artwork.mimeType(image) }
        if mime == "image/jpg" { mime = "image/jpeg" }
        if contents.artwork == nil || kind == 3 {
            contents.artwork = ParsedArtwork(mimeType: mime, data: Data(image))
            contents.artworkIsFrontCover = kind == 3
        }
    }

    /// Bytes up to the encoding's terminator (one zero byte, or two at an even offset for UTF-16),
    /// which is skipped.
    private static func terminated(_ reader: inout ByteCursor, encoding: UInt8) -> ArraySlice<UInt8> {
        guard encoding == 1 || encoding == 2 else { return reader.latin1CString() }
        let start = reader.position
        var index = start
        while index + 1 < reader.end {
            if reader.bytes[index] == 0, reader.bytes[index + 1] == 0 {
                let result = reader.bytes[start..<index]
                try? reader.skip(index + 2 - start)
                return result
            }
            index += 2
        }
        let result = reader.bytes[start..<reader.end]
        try? reader.skip(reader.remaining)
        return result
    }

    private static func decode(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
        switch encoding {
        case 0: TextDecoding.latin1(bytes)
        case 1: TextDecoding.utf16(bytes)
        case 2: TextDecoding.utf16(bytes)
        default: TextDecoding.utf8(bytes)
        }
    }

    /// "3/12" → 3.
    private static func position(_ text: String?) -> Int? {
        guard let text, let number = Int(text.split(separator: "/").first.map(String.init) ?? "") , number > 0 else { return nil }
        return number
    }

    // MARK: - Encoding helpers

    /// A 28-bit "syncsafe" integer: four bytes of seven bits each; nil when a byte has its top bit set.
    static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return bytes.reduce(0) { $0 << 7 | Int($1) }
    }

    /// Undoes unsynchronisation: every 0xFF 0x00 becomes 0xFF.
    static func resynchronised(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previousWasFF = false
        for byte in bytes {
            if previousWasFF, byte == 0 {
                previousWasFF = false
                continue
            }
            result.append(byte)
            previousWasFF = byte == 0xFF
        }
        return result
    }
}
