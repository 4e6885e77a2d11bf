import Foundation

/// One thing waiting in a queue: an episode, a book, a LibriVox book or an article, by its key in
/// the progress log (`podcast:<episodeID>`, `library:<itemID>`, `librivox:<bookID>`,
/// `article:<articleID>`), with what the queue's screen shows of it.
public struct QueueEntryInfo: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    public var item: String
    /// `episode`, `book`, `librivox` or `article`.
    public var kind: String
    public var title: String
    /// The podcast, the author, or the article's source.
    public var detail: String?
    /// Seconds, where known.
    public var duration: Double?
    public var addedAt: Date

    public init(id: UUID, item: String, kind: String, title: String, detail: String?, duration: Double?, addedAt: Date) {
        (self.id, self.item, self.kind, self.title, self.detail, self.duration, self.addedAt) = (id, item, kind, title, detail, duration, addedAt)
    }
}

/// A queue: the person's Up Next (`main`), or one of their named lists ("Bedtime", "Commute").
/// Its first entry is the one playing, or to play.
public struct QueueInfo: Codable, Sendable, Equatable {
    @LowercaseID public var id: UUID
    public var name: String
    public var main: Bool
    public var entries: [QueueEntryInfo]

    public init(id: UUID, name: String, main: Bool, entries: [QueueEntryInfo]) {
        (self.id, self.name, self.main, self.entries) = (id, name, main, entries)
    }
}

/// `GET /api/queues`: Up Next first, then the named lists in the order they were made.
public struct QueueList: Codable, Sendable, Equatable {
    public var queues: [QueueInfo]

    public init(queues: [QueueInfo]) {
        self.queues = queues
    }
}

/// `POST /api/queues` and `PATCH /api/queues/{queueID}`: a named list's name.
public struct QueueNameRequest: Codable, Sendable, Equatable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}

/// `POST /api/queues/{queueID}/entries`: `item` at the end (`at: "end"`, Add to Up Next), second
/// (`at: "next"`, Play Next: after the one playing), or at `index` (an Undo puts a removed entry
/// back where it was). An item already in the queue moves there.
public struct QueueAddRequest: Codable, Sendable, Equatable {
    public var item: String
    public var at: String?
    public var index: Int?

    public init(item: String, at: String? = nil, index: Int? = nil) {
        (self.item, self.at, self.index) = (item, at, index)
    }
}

/// `PUT /api/queues/{queueID}/entries`: the queue's entries in their new order, every one once.
public struct QueueOrderRequest: Codable, Sendable, Equatable {
    public var entries: [UUID]

    public init(entries: [UUID]) {
        self.entries = entries
    }
}
