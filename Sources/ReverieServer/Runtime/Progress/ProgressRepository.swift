import Fluent
import FluentSQL
import Foundation
import NIOConcurrencyHelpers
import Playback
import SQLKit

/// A person's listening-progress log, and each item's place on each device kept beside it.
public protocol ProgressRepository: Sendable {
    /// Adds the events whose client ids are new for this person, and moves their devices' places
    /// in the same transaction; returns how many were new.
    func append(_ events: [ProgressEvent], items: [String], ownedBy user: AuthenticatedUser) async throws -> Int
    /// Every event of the items, by item, in the order they arrived: the whole log.
    func events(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]]
    /// Each item's deciding event on each of its devices, in the order they arrived:
    /// `ListeningProgress.position` over them is the item's place, as over the whole log, and a
    /// device's own place is its one event. As fast after 5,000 events as after one.
    func places(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]]
    /// For each item whose key starts with `prefix`, the one event that decides its place (what
    /// `ListeningProgress.position` would pick from the whole log): for lists, which need every
    /// item's place but not every item's log.
    func deciding(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: ProgressEvent]
    /// The events of items whose key starts with `prefix` that arrived at or after `arrival`
    /// (`ProgressArrival`'s order), in that order: what other apps are told happened since.
    func arrived(prefixed prefix: String, since arrival: Int64, ownedBy user: AuthenticatedUser) async throws -> [(item: String, event: ProgressEvent)]
}

/// `ProgressRepository` on Fluent.
struct FluentProgressRepository: ProgressRepository {
    let database: any Database

    func append(_ events: [ProgressEvent], items: [String], ownedBy user: AuthenticatedUser) async throws -> Int {
        let arrival = ProgressArrival.next(count: events.count)
        return try await database.transaction { database in
            let sql = try Self.sql(database)
            var added = 0
            var seen = Set<String>()
            for (index, (event, item)) in zip(events, items).enumerated() where seen.insert(event.id).inserted {
                let order = arrival + Int64(index)
                // A client id already kept (a retried upload, or the same one arriving at once
                // elsewhere) adds nothing and moves nothing.
                let stored = try await sql.raw("""
                    INSERT INTO progress_events (id, owner_id, client_id, item, device, at, position, kind, created_at, arrival)
                    VALUES (\(bind: UUID()), \(bind: user.id), \(bind: event.id), \(bind: item), \(bind: event.device), \(bind: event.at),
                            \(bind: event.position), \(bind: event.kind.rawValue), \(bind: Date()), \(bind: order))
                    ON CONFLICT (owner_id, client_id) DO NOTHING RETURNING client_id
                    """).all()
                guard !stored.isEmpty else { continue }
                added += 1
                guard event.isReal else { continue }
                // The device's place moves when this event is later by device time, or as late
                // and arrived later (it always has): ListeningProgress's rule, one event at a time.
                try await sql.raw("""
                    INSERT INTO progress_places (id, owner_id, item, device, client_id, at, position, kind, arrival)
                    VALUES (\(bind: UUID()), \(bind: user.id), \(bind: item), \(bind: event.device), \(bind: event.id), \(bind: event.at),
                            \(bind: event.position), \(bind: event.kind.rawValue), \(bind: order))
                    ON CONFLICT (owner_id, item, device) DO UPDATE SET client_id = excluded.client_id, at = excluded.at,
                        position = excluded.position, kind = excluded.kind, arrival = excluded.arrival
                    WHERE excluded.at >= progress_places.at
                    """).run()
            }
            return added
        }
    }

    func events(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]] {
        guard !items.isEmpty else { return [:] }
        let rows = try await ProgressEventModel.query(ownedBy: user, on: database).filter(\.$item ~~ items).all()
        var byItem: [String: [ProgressEvent]] = [:]
        for row in rows.sorted(by: { ($0.arrival ?? 0) < ($1.arrival ?? 0) }) {
            guard let kind = ProgressEvent.Kind(rawValue: row.kind) else { continue }
            byItem[row.item, default: []].append(ProgressEvent(id: row.clientID, device: row.device, at: row.at, position: row.position, kind: kind))
        }
        return byItem
    }

    func places(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]] {
        guard !items.isEmpty else { return [:] }
        return Self.byItem(try await ProgressPlaceModel.query(ownedBy: user, on: database).filter(\.$item ~~ items).all())
    }

    func deciding(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: ProgressEvent] {
        let pattern = Self.likePattern(prefix)
        let rows = try await ProgressPlaceModel.query(ownedBy: user, on: database)
            .filter(.sql(embed: "item LIKE \(bind: pattern) ESCAPE '\\'")).all()
        return Self.byItem(rows).compactMapValues { ListeningProgress.deciding($0) }
    }

    func arrived(prefixed prefix: String, since arrival: Int64, ownedBy user: AuthenticatedUser) async throws -> [(item: String, event: ProgressEvent)] {
        let rows = try await ProgressEventModel.query(ownedBy: user, on: database)
            .filter(.sql(embed: "item LIKE \(bind: Self.likePattern(prefix)) ESCAPE '\\'")).filter(\.$arrival >= arrival)
            .sort(\.$arrival).all()
        return rows.compactMap { row in
            guard let kind = ProgressEvent.Kind(rawValue: row.kind) else { return nil }
            return (row.item, ProgressEvent(id: row.clientID, device: row.device, at: row.at, position: row.position, kind: kind))
        }
    }

    /// `prefix` and anything after it, for LIKE (whose wildcards in a key are only letters to it).
    private static func likePattern(_ prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// Places by item, each item's in the order they arrived (so a tie in device time goes to the later).
    private static func byItem(_ rows: [ProgressPlaceModel]) -> [String: [ProgressEvent]] {
        var byItem: [String: [ProgressEvent]] = [:]
        for row in rows.sorted(by: { $0.arrival < $1.arrival }) {
            guard let kind = ProgressEvent.Kind(rawValue: row.kind) else { continue }
            byItem[row.item, default: []].append(ProgressEvent(id: row.clientID, device: row.device, at: row.at, position: row.position, kind: kind))
        }
        return byItem
    }

    /// Every place made again from the log: each person's, item's and device's latest real event
    /// by device time, then arrival. What `append` keeps, worked out from scratch.
    static func rebuildPlaces(on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM progress_places").run()
        try await sql.raw("""
            INSERT INTO progress_places (id, owner_id, item, device, client_id, at, position, kind, arrival)
            SELECT id, owner_id, item, device, client_id, at, position, kind, arrival FROM (
                SELECT id, owner_id, item, device, client_id, at, position, kind, COALESCE(arrival, 0) AS arrival,
                       ROW_NUMBER() OVER (PARTITION BY owner_id, item, device ORDER BY at DESC, arrival DESC) AS n
                FROM progress_events WHERE position > 0 OR kind IN ('restart', 'unplayed')
            ) AS ranked WHERE n = 1
            """).run()
    }

    private static func sql(_ database: any Database) throws -> any SQLDatabase {
        guard let sql = database as? any SQLDatabase else { throw StoreError.notSQL }
        return sql
    }
}

/// The order events reach the server in, the same on every server sharing the database: the
/// server's clock in microseconds, times 1,024 so an upload's events (500 at most) keep their
/// order within one microsecond, and never less than the last one this process gave out.
/// Events stored before there was an arrival order were numbered from 1 in the order they were
/// stored (`AddProgressPlaces`), all below any given since.
enum ProgressArrival {
    private static let last = NIOLockedValueBox<Int64>(0)

    /// The first of `count` arrivals in a row.
    static func next(count: Int) -> Int64 {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000) * 1024
        return last.withLockedValue { last in
            let first = max(now, last + 1)
            last = first + Int64(max(1, count)) - 1
            return first
        }
    }
}
