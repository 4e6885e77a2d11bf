import Foundation

/// A backup the owner made from Settings: one zip on the server, to download and keep elsewhere.
public struct BackupInfo: Codable, Sendable, Equatable {
    public var id: String
    public var createdAt: Date
    /// The zip's size.
    public var bytes: Int
    /// How many files it holds (the database's copy among them).
    public var files: Int
    /// `sqlite` or `postgres`.
    public var database: String
    /// `GET` it to download the zip.
    public var downloadURL: String

    public init(id: String, createdAt: Date, bytes: Int, files: Int, database: String, downloadURL: String) {
        self.id = id
        self.createdAt = createdAt
        self.bytes = bytes
        self.files = files
        self.database = database
        self.downloadURL = downloadURL
    }
}

/// `GET /api/backups`: the backups on the server, newest first, and the one being made.
public struct BackupList: Codable, Sendable, Equatable {
    public var backups: [BackupInfo]
    /// The backup job queued or running, if any.
    public var making: JobInfo?

    public init(backups: [BackupInfo], making: JobInfo?) {
        self.backups = backups
        self.making = making
    }
}
