import Fluent
import Vapor

/// The tracks attached to a person's songs, as `SongTrackRecord` values, each with its music item
/// as the library's `LibraryItemRecord`.
public protocol SongTrackRepository: Sendable {
    /// The song's tracks with their music items, in the order they were attached.
    func all(of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> [(SongTrackRecord, LibraryItemRecord)]
    /// The track if it is on that song and the person's.
    func find(_ id: UUID, of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> (SongTrackRecord, LibraryItemRecord)?
    /// Attaches an item; the existing attachment (`created` false) when the item is on the song already.
    func attach(_ itemID: UUID, to compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> (track: SongTrackRecord, created: Bool)
    func setLoop(_ id: UUID, start: Double, end: Double, enabled: Bool, ownedBy user: AuthenticatedUser) async throws
    /// false when there was nothing to detach.
    func detach(_ id: UUID, of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// `SongTrackRepository` on Fluent.
struct FluentSongTrackRepository: SongTrackRepository {
    let database: any Database

    func all(of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> [(SongTrackRecord, LibraryItemRecord)] {
        let rows = try await SongTrackModel.query(ownedBy: user, on: database)
            .filter(\.$composition.$id == compositionID)
            .sort(\.$createdAt).sort(\.$id)
            .with(\.$item).all()
        return try rows.map { (try $0.record(), try $0.item.record()) }
    }

    func find(_ id: UUID, of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> (SongTrackRecord, LibraryItemRecord)? {
        guard let row = try await SongTrackModel.query(ownedBy: user, on: database)
            .filter(\.$id == id).filter(\.$composition.$id == compositionID)
            .with(\.$item).first() else { return nil }
        return (try row.record(), try row.item.record())
    }

    func attach(_ itemID: UUID, to compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> (track: SongTrackRecord, created: Bool) {
        if let existing = try await SongTrackModel.query(ownedBy: user, on: database)
            .filter(\.$composition.$id == compositionID).filter(\.$item.$id == itemID).first() {
            return (try existing.record(), false)
        }
        let row = SongTrackModel(ownerID: user.id, compositionID: compositionID, itemID: itemID)
        try await row.create(on: database)
        return (try row.record(), true)
    }

    func setLoop(_ id: UUID, start: Double, end: Double, enabled: Bool, ownedBy user: AuthenticatedUser) async throws {
        try await SongTrackModel.query(ownedBy: user, on: database).filter(\.$id == id)
            .set(\.$loopStart, to: start).set(\.$loopEnd, to: end).set(\.$loopEnabled, to: enabled)
            .update()
    }

    func detach(_ id: UUID, of compositionID: UUID, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let row = try await SongTrackModel.query(ownedBy: user, on: database)
            .filter(\.$id == id).filter(\.$composition.$id == compositionID).first() else { return false }
        try await row.delete(on: database)
        return true
    }
}

extension SongTrackModel {
    /// The row as a value; throws only for a row never saved (no id).
    func record() throws -> SongTrackRecord {
        SongTrackRecord(id: try requireID(), compositionID: $composition.id, itemID: $item.id, loopStart: loopStart, loopEnd: loopEnd,
                        loopEnabled: loopEnabled)
    }
}
