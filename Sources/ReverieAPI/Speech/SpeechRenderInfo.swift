import Foundation

/// A render job and, when done, where its files are.
public struct SpeechRenderInfo: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case rendering, done, failed
    }

    /// A problem in the script that did not stop the render (for example an unreadable marker).
    public struct Warning: Codable, Sendable, Equatable {
        public var line: Int
        public var column: Int
        public var message: String
        public init(line: Int, column: Int, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }
    }

    /// In lower case, as every other id the API sends.
    @LowercaseID public var id: UUID
    public var status: Status
    /// 0…1; 1 when done.
    public var progress: Double
    public var engine: String
    public var voice: String?
    public var rate: Double
    public var format: String
    public var characters: Int
    /// Length of the audio once done.
    public var durationMs: Int?
    public var warnings: [Warning]
    /// What went wrong, when failed.
    public var error: String?
    public var createdAt: Date
    /// `…/audio`, `…/captions.vtt`, `…/timeline` (present when done).
    public var audioURL: String?
    public var captionsURL: String?
    public var timelineURL: String?
    /// `…/first`: the opening up to the end of the first phrase, as WAV, present as soon as the
    /// first phrase is spoken (while the rest renders) and after.
    public var firstPhraseURL: String?
    /// `…/live`: the whole render as MP3, sent as it is spoken and ending where it does, so a
    /// player hears it from its first byte to its end with no handover (present while rendering).
    public var liveURL: String?

    public init(id: UUID, status: Status, progress: Double, engine: String, voice: String?, rate: Double, format: String,
                characters: Int, durationMs: Int?, warnings: [Warning], error: String?, createdAt: Date,
                audioURL: String?, captionsURL: String?, timelineURL: String?, firstPhraseURL: String? = nil, liveURL: String? = nil) {
        self.firstPhraseURL = firstPhraseURL
        self.liveURL = liveURL
        self.id = id
        self.status = status
        self.progress = progress
        self.engine = engine
        self.voice = voice
        self.rate = rate
        self.format = format
        self.characters = characters
        self.durationMs = durationMs
        self.warnings = warnings
        self.error = error
        self.createdAt = createdAt
        self.audioURL = audioURL
        self.captionsURL = captionsURL
        self.timelineURL = timelineURL
    }
}

/// A UUID sent in lower case (`3f2a…`), as the API sends every id; read in either case.
@propertyWrapper
public struct LowercaseID: Codable, Sendable, Equatable, Hashable {
    public var wrappedValue: UUID

    public init(wrappedValue: UUID) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not a UUID")
        }
        wrappedValue = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.uuidString.lowercased())
    }
}

/// An optional id sent in lower case, left out when there is none (as an optional field is);
/// read in either case.
@propertyWrapper
public struct LowercaseOptionalID: Codable, Sendable, Equatable, Hashable {
    public var wrappedValue: UUID?

    public init(wrappedValue: UUID?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
            return
        }
        wrappedValue = try LowercaseID(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue.uuidString.lowercased())
        } else {
            try container.encodeNil()
        }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is no id, as for an optional field.
    public func decode(_ type: LowercaseOptionalID.Type, forKey key: Key) throws -> LowercaseOptionalID {
        try decodeIfPresent(type, forKey: key) ?? LowercaseOptionalID(wrappedValue: nil)
    }
}

extension KeyedEncodingContainer {
    /// No id leaves the key out, as for an optional field.
    public mutating func encode(_ value: LowercaseOptionalID, forKey key: Key) throws {
        if value.wrappedValue != nil { try encodeIfPresent(value, forKey: key) }
    }
}
