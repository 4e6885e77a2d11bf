import Fluent
import FluentSQL
import Foundation
import Playback
import SQLKit

/// A person's listening-progress log.
public protocol ProgressRepository: Sendable {
    /// Adds the events whose client ids are new for this person; returns how many were.
    func append(_ events: [ProgressEvent], items: [String], ownedBy user: AuthenticatedUser) async throws -> Int
    /// Every event of the items, by item.
    func events(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]]
    /// For each item whose key starts with `prefix`, the one event that decides its place (what
    /// `ListeningProgress.position` would pick from the whole log): for lists, which need every
    /// item's place but not every item's log.
    func deciding(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: ProgressEvent]
}

/// `ProgressRepository` on Fluent.
struct FluentProgressRepository: ProgressRepository {
    let database: any Database

    func append(_ events: [ProgressEvent], items: [String], ownedBy user: AuthenticatedUser) async throws -> Int {
        let known = Set(try await ProgressEventModel.query(ownedBy: user, on: database)
            .filter(\.$clientID ~~ events.map(\.id)).field(\.$clientID).field(\.$owner.$id).all().map(\.clientID))
        var added = 0
        var seen = known
        for (event, item) in zip(events, items) where seen.insert(event.id).inserted {
            let row = ProgressEventModel(ownerID: user.id, clientID: event.id, item: item, device: event.device,
                                         at: event.at, position: event.position, kind: event.kind.rawValue)
            do {
                try await row.create(on: database)
                added += 1
            } catch let error as any DatabaseError where error.isConstraintFailure {
                // The same upload arrived twice at once: the other one stored it.
            }
        }
        return added
    }

    func events(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]] {
        guard !items.isEmpty else { return [:] }
        return Self.grouped(try await ProgressEventModel.query(ownedBy: user, on: database).filter(\.$item ~~ items).all())
    }

    func deciding(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: ProgressEvent] {
        guard let sql = database as? any SQLDatabase else { throw APIError(.internalServerError, code: "database", "The database does not speak SQL.") }
        // ListeningProgress's rule in SQL: only real events (past 0, or a restart or unplayed),
        // then the latest by wall time, the further position, then the client id compared by its
        // bytes as Swift compares it (PostgreSQL's default collation would order ids by locale).
        let bytewise = sql.dialect.name == "postgresql" ? " COLLATE \"C\"" : ""
        let rows = try await sql.raw("""
            SELECT client_id, item, device, at, position, kind FROM (
                SELECT client_id, item, device, at, position, kind,
                       ROW_NUMBER() OVER (PARTITION BY item ORDER BY at DESC, position DESC, client_id\(unsafeRaw: bytewise) DESC) AS n
                FROM progress_events
                WHERE owner_id = \(bind: user.id) AND item LIKE \(bind: prefix + "%")
                  AND (position > 0 OR kind IN ('restart', 'unplayed'))
            ) AS ranked WHERE n = 1
            """).all()
        var deciding: [String: ProgressEvent] = [:]
        for row in rows {
            guard let kind = ProgressEvent.Kind(rawValue: try row.decode(column: "kind", as: String.self)) else { continue }
            deciding[try row.decode(column: "item", as: String.self)] = ProgressEvent(
                id: try row.decode(column: "client_id", as: String.self), device: try row.decode(column: "device", as: String.self),
                at: try row.decode(column: "at", as: Date.self), position: try row.decode(column: "position", as: Double.self), kind: kind)
        }
        return deciding
    }

    static func grouped(_ rows: [ProgressEventModel]) -> [String: [ProgressEvent]] {
        var byItem: [String: [ProgressEvent]] = [:]
        for row in rows {
            guard let kind = ProgressEvent.Kind(rawValue: row.kind) else { continue }
            byItem[row.item, default: []].append(ProgressEvent(id: row.clientID, device: row.device, at: row.at, position: row.position, kind: kind))
        }
        return byItem
    }
}
