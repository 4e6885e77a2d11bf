import Foundation
import ReverieAPI
import Vapor

extension QueueInfo: Content {}
extension QueueList: Content {}

/// Up Next and named lists (issue 35): a queue that lives on the server, the same on every
/// device. Its first entry is the one playing; Play Next puts an item second; the web player
/// removes an entry when it has played through it.
struct QueueController: RouteCollection {
    let queues: Store<any QueueRepository>
    let podcasts: Store<any PodcastRepository>
    let library: Store<any LibraryRepository>
    let articles: Store<any ArticleRepository>
    /// Looks a LibriVox book up (the catalog, kept a while).
    let librivox: LibriVoxController
    /// The most entries a queue holds, and the most named lists a person keeps.
    static let maxEntries = 500
    static let maxLists = 30

    func boot(routes: any RoutesBuilder) throws {
        let queues = routes.grouped("api", "queues")
        queues.get(use: list)
        queues.post(use: create)
        queues.patch(":queueID", use: rename)
        queues.delete(":queueID", use: delete)
        queues.post(":queueID", "entries", use: add)
        queues.put(":queueID", "entries", use: reorder)
        queues.delete(":queueID", "entries", ":entryID", use: remove)
    }

    /// `GET /api/queues`: Up Next first, then the named lists. Entries whose item has gone (an
    /// article deleted, a podcast unsubscribed) leave their queues here.
    func list(req: Request) async throws -> QueueList {
        let user = try req.user
        var lists = try await queues.on(req).queues(ownedBy: user)
        for (index, queue) in lists.enumerated() {
            var gone = Set<UUID>()
            for entry in queue.entries where try await !stillThere(entry.item, req) { gone.insert(entry.id) }
            if !gone.isEmpty, let kept = try await queues.on(req).remove(gone, from: queue.id, ownedBy: user) { lists[index] = kept }
        }
        return QueueList(queues: lists)
    }

    /// `POST /api/queues` `{name}`: a new named list (201).
    func create(req: Request) async throws -> Response {
        let user = try req.user
        let name = try Self.name(req)
        let lists = try await queues.on(req).queues(ownedBy: user)
        guard !lists.contains(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else { throw Self.nameTaken(name) }
        guard lists.count - 1 < Self.maxLists else {
            throw APIError(.conflict, code: "too_many_lists", "You have \(Self.maxLists) lists already; remove one to make another.")
        }
        do {
            return try await queues.on(req).create(named: name, ownedBy: user).encodeResponse(status: .created, for: req)
        } catch QueueStoreError.nameTaken {
            throw Self.nameTaken(name)
        }
    }

    /// `PATCH /api/queues/{queueID}` `{name}`: a named list's new name (Up Next keeps its own).
    func rename(req: Request) async throws -> QueueInfo {
        let user = try req.user
        let id = try req.uuidParameter("queueID", naming: "list")
        let name = try Self.name(req)
        let lists = try await queues.on(req).queues(ownedBy: user)
        guard !lists.contains(where: { $0.id != id && $0.name.caseInsensitiveCompare(name) == .orderedSame }) else { throw Self.nameTaken(name) }
        do {
            guard let queue = try await queues.on(req).rename(id, to: name, ownedBy: user) else { throw try await noList(id, req) }
            return queue
        } catch QueueStoreError.nameTaken {
            throw Self.nameTaken(name)
        }
    }

    /// `DELETE /api/queues/{queueID}`: a named list and its entries (the items stay).
    func delete(req: Request) async throws -> HTTPStatus {
        let id = try req.uuidParameter("queueID", naming: "list")
        guard try await queues.on(req).delete(id, ownedBy: try req.user) else { throw try await noList(id, req) }
        return .noContent
    }

    /// `POST /api/queues/{queueID}/entries` `{item, at, index}`: at the end, second (Play Next),
    /// or at an index (Undo); an item queued already moves there.
    func add(req: Request) async throws -> Response {
        let user = try req.user
        let id = try req.uuidParameter("queueID", naming: "list")
        let body = try req.content.decode(QueueAddRequest.self)
        guard let key = QueueItem(body.item)?.key else { throw QueueItem.badKey }
        let entry = try await describe(key, req)
        guard let queue = try await queues.on(req).queue(id, ownedBy: user) else { throw APIError.notFound("list") }
        let index: Int
        switch (body.at, body.index) {
        case let (_, wanted?) where wanted >= 0: index = wanted
        case (_, .some): throw APIError(.badRequest, code: "invalid_field", "index: a place in the list, 0 or more.")
        case ("next", nil): index = queue.entries.first?.item == entry.item ? 0 : 1
        case ("end", nil), (nil, nil): index = Int.max
        default: throw APIError(.badRequest, code: "invalid_field", "at: end (Add to Up Next) or next (Play Next).")
        }
        do {
            guard let changed = try await queues.on(req).insert(entry, at: index, into: id, limit: Self.maxEntries, ownedBy: user) else {
                throw APIError.notFound("list")
            }
            return try await changed.encodeResponse(status: .created, for: req)
        } catch QueueStoreError.full(let limit) {
            throw APIError(.conflict, code: "queue_full", "“\(queue.name)” holds \(limit) items already; remove some to add more.")
        }
    }

    /// `PUT /api/queues/{queueID}/entries` `{entries}`: the new order, every entry once. A 409
    /// `queue_changed` when another device changed the queue meanwhile.
    func reorder(req: Request) async throws -> QueueInfo {
        let id = try req.uuidParameter("queueID", naming: "list")
        let body = try req.content.decode(QueueOrderRequest.self)
        do {
            guard let queue = try await queues.on(req).reorder(id, to: body.entries, ownedBy: try req.user) else { throw APIError.notFound("list") }
            return queue
        } catch QueueStoreError.orderChanged {
            throw APIError(.conflict, code: "queue_changed", "The list changed on another device meanwhile; here it is as it is now.")
        }
    }

    /// `DELETE /api/queues/{queueID}/entries/{entryID}`: the entry leaves the queue (the item stays).
    func remove(req: Request) async throws -> QueueInfo {
        let user = try req.user
        let id = try req.uuidParameter("queueID", naming: "list")
        let entryID = try req.uuidParameter("entryID", naming: "entry")
        guard let queue = try await queues.on(req).queue(id, ownedBy: user) else { throw APIError.notFound("list") }
        guard queue.entries.contains(where: { $0.id == entryID }) else { throw APIError.notFound("entry in that list") }
        guard let changed = try await queues.on(req).remove([entryID], from: id, ownedBy: user) else { throw APIError.notFound("list") }
        return changed
    }

    // MARK: - Items

    /// What a queue shows of `item`, looked up where the person keeps it: a 404 when they have no
    /// such thing (another person's article reads as missing, as everywhere).
    func describe(_ item: String, _ req: Request) async throws -> QueueEntryInfo {
        let user = try req.user
        func entry(_ kind: String, _ title: String, _ detail: String?, _ duration: Double?) -> QueueEntryInfo {
            QueueEntryInfo(id: UUID(), item: item, kind: kind, title: title, detail: detail, duration: duration, addedAt: Date())
        }
        switch QueueItem(item) {
        case let .episode(id)?:
            guard let episode = try await podcasts.on(req).episode(id),
                  let subscription = try await podcasts.on(req).subscription(to: episode.podcastID, ownedBy: user) else {
                throw APIError(.notFound, code: "not_found", "No episode with that id among your podcasts.")
            }
            return entry("episode", episode.shownTitle, subscription.podcast.title, episode.duration)
        case let .book(id)?:
            guard let book = try await library.on(req).find(id, ownedBy: user) else { throw APIError.notFound("book in your library") }
            guard book.kind == "book" else {
                throw APIError(.unprocessableEntity, code: "not_speech", "Up Next is for the speech player: episodes, books, LibriVox books and articles. Music plays from your library.")
            }
            return entry("book", book.title, book.author, Double(book.durationMs) / 1000)
        case let .librivox(id)?:
            guard let book = try await librivox.cached(id, req) else { throw APIError(.notFound, code: "not_found", "LibriVox has no book with id \(id).") }
            guard !book.sections.isEmpty else {
                throw APIError(.unprocessableEntity, code: "no_sections", "“\(book.title)” has no recordings on LibriVox yet.")
            }
            return entry("librivox", book.title, book.authors.joined(separator: ", "), book.seconds > 0 ? book.seconds : nil)
        case let .article(id)?:
            guard let article = try await articles.on(req).find(id, ownedBy: user) else { throw APIError.notFound("article") }
            let summary = article.summary
            return entry("article", summary.title, summary.source, nil)
        case nil:
            throw QueueItem.badKey
        }
    }

    /// Whether the person still has `item` (a LibriVox book is the catalog's: always).
    private func stillThere(_ item: String, _ req: Request) async throws -> Bool {
        let user = try req.user
        switch QueueItem(item) {
        case let .episode(id)?:
            guard let episode = try await podcasts.on(req).episode(id) else { return false }
            return try await podcasts.on(req).subscription(to: episode.podcastID, ownedBy: user) != nil
        case let .book(id)?: return try await library.on(req).find(id, ownedBy: user) != nil
        case let .article(id)?: return try await articles.on(req).find(id, ownedBy: user) != nil
        case .librivox?: return true
        case nil: return false
        }
    }

    private static func name(_ req: Request) throws -> String {
        let name = try req.content.decode(QueueNameRequest.self).name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...60).contains(name.count) else { throw APIError(.badRequest, code: "invalid_field", "name: 1 to 60 characters.") }
        guard name.caseInsensitiveCompare(FluentQueueRepository.mainName) != .orderedSame else { throw nameTaken(name) }
        return name
    }

    private static func nameTaken(_ name: String) -> APIError {
        APIError(.conflict, code: "name_taken", "You have a list called “\(name)” already; give this one another name.")
    }

    /// A 404, or for Up Next a 409 that says it stays.
    private func noList(_ id: UUID, _ req: Request) async throws -> APIError {
        if let queue = try await queues.on(req).queue(id, ownedBy: try req.user), queue.main {
            return APIError(.conflict, code: "up_next_stays", "Up Next is always there and keeps its name; remove its items to empty it.")
        }
        return APIError.notFound("list")
    }
}

/// A queue entry's item key, as the progress log names the same things.
/// What Up Next and the lists hold: an episode, a book, a LibriVox book or an article, named by
/// its `ItemKey` (a whole item, never a part).
enum QueueItem: Equatable {
    case episode(UUID)
    case book(UUID)
    case librivox(Int)
    case article(UUID)

    init?(_ text: String) {
        guard let key = ItemKey(text), key.part == nil else { return nil }
        switch key.kind {
        case .podcast: self = .episode(key.uuid!)
        case .library: self = .book(key.uuid!)
        case .article: self = .article(key.uuid!)
        case .librivox: self = .librivox(Int(key.id)!)
        case .windDown, .bedside: return nil
        }
    }

    /// The item's key as every player writes it (`ItemKey`, in small letters), whatever case it
    /// was sent in: a player finds the item's saved answers and downloads by the same key.
    var key: String {
        switch self {
        case let .episode(id): ItemKey(.podcast, id).text
        case let .book(id): ItemKey(.library, id).text
        case let .librivox(number): ItemKey.librivox(number).text
        case let .article(id): ItemKey(.article, id).text
        }
    }

    static let badKey = APIError(.badRequest, code: "invalid_field",
                                 "item: podcast:<episode id>, library:<book id>, librivox:<LibriVox id> or article:<article id>.")
}
