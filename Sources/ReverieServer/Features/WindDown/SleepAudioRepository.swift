import Fluent
import Foundation

/// What the owner attached to a Wind Down item.
public struct SleepAttachment: Sendable, Equatable {
    /// An upload, a script, or `removed`: the owner took the catalog's audio away (Coming Soon).
    public enum Source: String, Sendable, Codable { case upload, script, removed }
    public var itemID: String
    public var source: Source
    public var file: String?
    public var originalName: String?
    public var script: String?
    public var durationMs: Int?
}

/// The owner's Wind Down audio, one per item.
public protocol SleepAudioRepository: Sendable {
    func all() async throws -> [String: SleepAttachment]
    func attachment(for itemID: String) async throws -> SleepAttachment?
    /// Stores `attachment`, replacing the item's earlier one; returns the one it replaced.
    func attach(_ attachment: SleepAttachment) async throws -> SleepAttachment?
    /// Removes the item's attachment; returns it.
    func detach(_ itemID: String) async throws -> SleepAttachment?
}

struct FluentSleepAudioRepository: SleepAudioRepository {
    let database: any Database

    func all() async throws -> [String: SleepAttachment] {
        Dictionary(try await SleepAudioModel.query(on: database).all().map { ($0.itemID, Self.attachment($0)) }, uniquingKeysWith: { first, _ in first })
    }

    func attachment(for itemID: String) async throws -> SleepAttachment? {
        try await SleepAudioModel.query(on: database).filter(\.$itemID == itemID).first().map(Self.attachment)
    }

    func attach(_ attachment: SleepAttachment) async throws -> SleepAttachment? {
        try await database.transaction { database in
            // The transaction starts with a write (touching the item's row, if any) so SQLite takes
            // the write lock at once; one that reads first fails with SQLITE_BUSY when another
            // write lands in between (see CompositionRepository).
            try await SleepAudioModel.query(on: database).filter(\.$itemID == attachment.itemID)
                .set(\.$itemID, to: attachment.itemID).update()
            let old = try await SleepAudioModel.query(on: database).filter(\.$itemID == attachment.itemID).first()
            try await old?.delete(on: database)
            try await SleepAudioModel(itemID: attachment.itemID, source: attachment.source.rawValue, file: attachment.file,
                                      originalName: attachment.originalName, script: attachment.script,
                                      durationMs: attachment.durationMs).create(on: database)
            return old.map(Self.attachment)
        }
    }

    func detach(_ itemID: String) async throws -> SleepAttachment? {
        guard let row = try await SleepAudioModel.query(on: database).filter(\.$itemID == itemID).first() else { return nil }
        try await row.delete(on: database)
        return Self.attachment(row)
    }

    static func attachment(_ row: SleepAudioModel) -> SleepAttachment {
        SleepAttachment(itemID: row.itemID, source: SleepAttachment.Source(rawValue: row.source) ?? .upload, file: row.file,
                        originalName: row.originalName, script: row.script, durationMs: row.durationMs)
    }
}
