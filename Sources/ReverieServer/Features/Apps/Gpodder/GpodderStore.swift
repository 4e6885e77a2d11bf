import Feeds
import Fluent
import Foundation
import SQLKit

/// The server's clock for `since`, in milliseconds: what subscription changes and episode actions
/// are stamped with when they arrive, the same on every server sharing the database.
enum GpodderClock {
    static func milliseconds(_ date: Date = Date()) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

/// An episode action as kept: what the app said, and when it reached the server. (The table also
/// keeps the episode it was found to be, which `waiting` reads.)
struct StoredEpisodeAction: Sendable, Equatable {
    var id: UUID
    var action: GpodderSync.EpisodeAction
    /// Milliseconds since 1970.
    var received: Int64
}

/// A device a podcast app named.
struct GpodderDevice: Sendable, Equatable {
    var id: String
    var caption: String
    var type: String
}

/// What the podcast apps' protocols keep beside Reverie's own stores: episode actions as the apps
/// sent them, and the devices they named.
protocol GpodderRepository: Sendable {
    /// Keeps the actions, all or none; answers their ids in order.
    func append(_ actions: [GpodderSync.EpisodeAction], ownerID: UUID, received: Int64) async throws -> [UUID]
    /// The person's actions that arrived at or after `since` (milliseconds), oldest first,
    /// of one podcast or one device when given.
    func actions(ownerID: UUID, since: Int64, podcast: String?, device: String?) async throws -> [StoredEpisodeAction]
    /// Actions of this feed not yet found among its episodes, with whose they are.
    func waiting(podcastURL: String) async throws -> [(ownerID: UUID, action: StoredEpisodeAction)]
    func found(_ actionIDs: [UUID], episodeID: UUID) async throws
    func devices(ownerID: UUID) async throws -> [GpodderDevice]
    /// Adds the device, or changes what is given of it.
    func saveDevice(_ id: String, caption: String?, type: String?, ownerID: UUID, now: Date) async throws
}

struct FluentGpodderRepository: GpodderRepository {
    let database: any Database
    /// Rows per INSERT: SQLite takes at most 32,766 bound values in one statement.
    static let rowsPerStatement = 500

    func append(_ actions: [GpodderSync.EpisodeAction], ownerID: UUID, received: Int64) async throws -> [UUID] {
        let ids = actions.map { _ in UUID() }
        guard !actions.isEmpty else { return [] }
        try await database.transaction { database in
            let sql = database as! any SQLDatabase
            for start in stride(from: 0, to: actions.count, by: Self.rowsPerStatement) {
                let insert = sql.insert(into: "episode_actions")
                    .columns("id", "owner_id", "podcast_url", "episode_url", "guid", "device", "action", "at", "started", "position", "total", "received")
                for index in start..<min(actions.count, start + Self.rowsPerStatement) {
                    let action = actions[index]
                    insert.values(SQLBind(ids[index]), SQLBind(ownerID), SQLBind(action.podcast), SQLBind(action.episode), SQLBind(action.guid),
                                  SQLBind(action.device), SQLBind(action.action.rawValue),
                                  SQLBind(action.timestamp ?? Date(timeIntervalSince1970: Double(received) / 1000)),
                                  SQLBind(action.started), SQLBind(action.position), SQLBind(action.total), SQLBind(received))
                }
                try await insert.run()
            }
        }
        return ids
    }

    func actions(ownerID: UUID, since: Int64, podcast: String?, device: String?) async throws -> [StoredEpisodeAction] {
        let sql = database as! any SQLDatabase
        let query = sql.select().column("*").from("episode_actions")
            .where("owner_id", .equal, SQLBind(ownerID)).where("received", .greaterThanOrEqual, SQLBind(since))
        if let podcast { query.where("podcast_url", .equal, SQLBind(podcast)) }
        if let device { query.where("device", .equal, SQLBind(device)) }
        return try await query.orderBy("received").orderBy("at").all().map(Self.stored)
    }

    func waiting(podcastURL: String) async throws -> [(ownerID: UUID, action: StoredEpisodeAction)] {
        let sql = database as! any SQLDatabase
        return try await sql.raw("""
            SELECT * FROM episode_actions WHERE podcast_url = \(bind: podcastURL) AND episode_id IS NULL
            AND action NOT IN ('download', 'flattr') ORDER BY received, at
            """).all().map { (try $0.decode(column: "owner_id", as: UUID.self), try Self.stored($0)) }
    }

    func found(_ actionIDs: [UUID], episodeID: UUID) async throws {
        guard !actionIDs.isEmpty else { return }
        let sql = database as! any SQLDatabase
        for start in stride(from: 0, to: actionIDs.count, by: Self.rowsPerStatement) {
            let part = actionIDs[start..<min(actionIDs.count, start + Self.rowsPerStatement)]
            try await sql.update("episode_actions").set("episode_id", to: SQLBind(episodeID))
                .where("id", .in, SQLBind.group(Array(part))).run()
        }
    }

    func devices(ownerID: UUID) async throws -> [GpodderDevice] {
        let sql = database as! any SQLDatabase
        return try await sql.raw("SELECT device, caption, type FROM gpodder_devices WHERE owner_id = \(bind: ownerID) ORDER BY device").all().map {
            GpodderDevice(id: try $0.decode(column: "device", as: String.self), caption: try $0.decode(column: "caption", as: String.self),
                          type: try $0.decode(column: "type", as: String.self))
        }
    }

    func saveDevice(_ id: String, caption: String?, type: String?, ownerID: UUID, now: Date) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("""
            INSERT INTO gpodder_devices (id, owner_id, device, caption, type, updated_at)
            VALUES (\(bind: UUID()), \(bind: ownerID), \(bind: id), \(bind: caption ?? id), \(bind: type ?? "other"), \(bind: now))
            ON CONFLICT (owner_id, device) DO UPDATE SET
                caption = COALESCE(\(bind: caption), gpodder_devices.caption), type = COALESCE(\(bind: type), gpodder_devices.type),
                updated_at = excluded.updated_at
            """).run()
    }

    private static func stored(_ row: any SQLRow) throws -> StoredEpisodeAction {
        let action = GpodderSync.Action(rawValue: try row.decode(column: "action", as: String.self)) ?? .download
        return StoredEpisodeAction(
            id: try row.decode(column: "id", as: UUID.self),
            action: GpodderSync.EpisodeAction(
                podcast: try row.decode(column: "podcast_url", as: String.self), episode: try row.decode(column: "episode_url", as: String.self),
                guid: try row.decode(column: "guid", as: String?.self), device: try row.decode(column: "device", as: String.self), action: action,
                timestamp: try row.decode(column: "at", as: Date.self), started: try row.decode(column: "started", as: Int?.self),
                position: try row.decode(column: "position", as: Int?.self), total: try row.decode(column: "total", as: Int?.self)),
            received: try row.decode(column: "received", as: Int64.self))
    }
}
