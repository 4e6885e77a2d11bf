import Fluent
import Foundation
import ReverieAPI

/// What a change to a queue can meet besides a missing queue.
enum QueueStoreError: Error, Equatable {
    /// The person has a list by that name already.
    case nameTaken
    /// The order given is not the queue's entries, each once: another device changed it meanwhile.
    case orderChanged
    /// The queue holds `limit` entries already.
    case full(limit: Int)
}

/// Each person's Up Next and named lists (issue 35). Every change rewrites the positions of the
/// queue it changes, in one transaction whose first write is the queue's own row, so two devices
/// changing one queue at once take turns.
public protocol QueueRepository: Sendable {
    /// Up Next (made when the person has none yet), then the named lists, oldest first.
    func queues(ownedBy user: AuthenticatedUser) async throws -> [QueueInfo]
    func queue(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> QueueInfo?
    /// A new named list. Throws `QueueStoreError.nameTaken`.
    func create(named name: String, ownedBy user: AuthenticatedUser) async throws -> QueueInfo
    /// Throws `QueueStoreError.nameTaken`; nil when there is no such list.
    func rename(_ id: UUID, to name: String, ownedBy user: AuthenticatedUser) async throws -> QueueInfo?
    /// Removes a named list and its entries; false when there is no such list (or it is Up Next).
    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
    /// Puts `entry` (its item, kind, title, detail and duration) at `index` (kept within the
    /// queue), moving the queued entry there when the item is queued already. Throws
    /// `QueueStoreError.full` past `limit` entries.
    func insert(_ entry: QueueEntryInfo, at index: Int, into queueID: UUID, limit: Int, ownedBy user: AuthenticatedUser) async throws -> QueueInfo?
    /// Puts the entries in `order`. Throws `QueueStoreError.orderChanged` unless `order` holds
    /// each of the queue's entries exactly once.
    func reorder(_ queueID: UUID, to order: [UUID], ownedBy user: AuthenticatedUser) async throws -> QueueInfo?
    /// Removes the entries (those not in the queue are passed over).
    func remove(_ entryIDs: Set<UUID>, from queueID: UUID, ownedBy user: AuthenticatedUser) async throws -> QueueInfo?
}

/// `QueueRepository` on Fluent: `queues` and `queue_entries`.
struct FluentQueueRepository: QueueRepository {
    let database: any Database
    /// Up Next's name.
    static let mainName = "Up Next"

    func queues(ownedBy user: AuthenticatedUser) async throws -> [QueueInfo] {
        var rows = try await QueueModel.query(ownedBy: user, on: database).sort(\.$createdAt).all()
        if !rows.contains(where: \.main) {
            let main = QueueModel()
            main.$owner.id = user.id
            (main.name, main.main, main.changedAt) = (Self.mainName, true, Date())
            do {
                try await main.create(on: database)
                rows.append(main)
            } catch let error as any DatabaseError where error.isConstraintFailure {
                // Made at the same moment by another request: that one is it.
                rows = try await QueueModel.query(ownedBy: user, on: database).sort(\.$createdAt).all()
            }
        }
        let entries = try await QueueEntryModel.query(ownedBy: user, on: database).sort(\.$position).all()
        let byQueue = Dictionary(grouping: entries, by: { $0.$queue.id })
        let ordered = rows.filter(\.main) + rows.filter { !$0.main }
        return try ordered.map { try Self.info($0, byQueue[$0.requireID()] ?? []) }
    }

    func queue(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> QueueInfo? {
        try await Self.read(id, user, database)
    }

    func create(named name: String, ownedBy user: AuthenticatedUser) async throws -> QueueInfo {
        let row = QueueModel()
        row.$owner.id = user.id
        (row.name, row.main, row.changedAt) = (name, false, Date())
        do {
            try await row.create(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw QueueStoreError.nameTaken
        }
        return try Self.info(row, [])
    }

    func rename(_ id: UUID, to name: String, ownedBy user: AuthenticatedUser) async throws -> QueueInfo? {
        guard let row = try await QueueModel.find(id, ownedBy: user, on: database), !row.main else { return nil }
        row.name = name
        do {
            try await row.save(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw QueueStoreError.nameTaken
        }
        return try await Self.read(id, user, database)
    }

    func delete(_ id: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let row = try await QueueModel.find(id, ownedBy: user, on: database), !row.main else { return false }
        try await database.transaction { database in
            try await QueueEntryModel.query(ownedBy: user, on: database).filter(\.$queue.$id == id).delete()
            try await row.delete(on: database)
        }
        return true
    }

    func insert(_ entry: QueueEntryInfo, at index: Int, into queueID: UUID, limit: Int, ownedBy user: AuthenticatedUser) async throws -> QueueInfo? {
        try await change(queueID, user) { entries, database in
            var order = entries
            let row: QueueEntryModel
            if let queued = order.firstIndex(where: { $0.item == entry.item }) {
                row = order.remove(at: queued)
            } else {
                guard order.count < limit else { throw QueueStoreError.full(limit: limit) }
                row = QueueEntryModel()
                row.$owner.id = user.id
                row.$queue.id = queueID
                row.item = entry.item
                row.position = -1
            }
            (row.kind, row.title, row.detail, row.duration) = (entry.kind, entry.title, entry.detail, entry.duration)
            order.insert(row, at: max(0, min(index, order.count)))
            let position = order.firstIndex { $0 === row } ?? 0
            if row.id == nil {
                row.position = position
                try await row.create(on: database)
            } else if row.position == position {
                try await row.save(on: database)   // in place already: what it shows may still be new
            }
            return order
        }
    }

    func reorder(_ queueID: UUID, to order: [UUID], ownedBy user: AuthenticatedUser) async throws -> QueueInfo? {
        try await change(queueID, user) { entries, _ in
            let byID = Dictionary(uniqueKeysWithValues: entries.compactMap { row in row.id.map { ($0, row) } })
            guard order.count == entries.count, Set(order).count == order.count else { throw QueueStoreError.orderChanged }
            return try order.map { id in
                guard let row = byID[id] else { throw QueueStoreError.orderChanged }
                return row
            }
        }
    }

    func remove(_ entryIDs: Set<UUID>, from queueID: UUID, ownedBy user: AuthenticatedUser) async throws -> QueueInfo? {
        try await change(queueID, user) { entries, database in
            var kept: [QueueEntryModel] = []
            for row in entries {
                if let id = row.id, entryIDs.contains(id) { try await row.delete(on: database) } else { kept.append(row) }
            }
            return kept
        }
    }

    /// One change to a queue: its row written first (the lock), its entries read in order,
    /// `body` answers the new order, and positions that moved are written.
    private func change(_ queueID: UUID, _ user: AuthenticatedUser,
                        _ body: @escaping @Sendable ([QueueEntryModel], any Database) async throws -> [QueueEntryModel]) async throws -> QueueInfo? {
        try await database.transaction { database in
            try await QueueModel.query(ownedBy: user, on: database).filter(\.$id == queueID).set(\.$changedAt, to: Date()).update()
            guard try await QueueModel.find(queueID, ownedBy: user, on: database) != nil else { return nil }
            let entries = try await QueueEntryModel.query(ownedBy: user, on: database).filter(\.$queue.$id == queueID).sort(\.$position).all()
            let order = try await body(entries, database)
            for (position, row) in order.enumerated() where row.position != position {
                row.position = position
                try await row.save(on: database)
            }
            return try await Self.read(queueID, user, database)
        }
    }

    private static func read(_ id: UUID, _ user: AuthenticatedUser, _ database: any Database) async throws -> QueueInfo? {
        guard let row = try await QueueModel.find(id, ownedBy: user, on: database) else { return nil }
        let entries = try await QueueEntryModel.query(ownedBy: user, on: database).filter(\.$queue.$id == id).sort(\.$position).all()
        return try info(row, entries)
    }

    private static func info(_ row: QueueModel, _ entries: [QueueEntryModel]) throws -> QueueInfo {
        QueueInfo(id: try row.requireID(), name: row.name, main: row.main, entries: try entries.map {
            QueueEntryInfo(id: try $0.requireID(), item: $0.item, kind: $0.kind, title: $0.title, detail: $0.detail, duration: $0.duration,
                           addedAt: $0.createdAt ?? Date(timeIntervalSince1970: 0))
        })
    }
}
