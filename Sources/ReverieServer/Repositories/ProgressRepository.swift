import Fluent
import Foundation
import Playback

/// A person's listening-progress log.
public protocol ProgressRepository: Sendable {
    /// Adds the events whose client ids are new for this person; returns how many were.
    func append(_ events: [ProgressEvent], items: [String], ownedBy user: AuthenticatedUser) async throws -> Int
    /// Every event of the items, by item.
    func events(of items: [String], ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]]
    /// Every event of the items whose key starts with `prefix` (`winddown:`), by item.
    func events(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]]
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

    func events(prefixed prefix: String, ownedBy user: AuthenticatedUser) async throws -> [String: [ProgressEvent]] {
        Self.grouped(try await ProgressEventModel.query(ownedBy: user, on: database).filter(\.$item =~ prefix).all())
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
