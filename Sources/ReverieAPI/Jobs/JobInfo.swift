import Foundation

/// A job: long work the server does in the background (a LibriVox download), with its progress.
public struct JobInfo: Codable, Sendable, Equatable {
    public var id: String
    /// `librivox.download`.
    public var kind: String
    public var title: String
    /// `queued`, `running`, `done` or `failed`.
    public var status: String
    /// 0…1.
    public var progress: Double
    /// What it is doing, or why it failed.
    public var message: String?
    /// When done: the library item it made.
    public var itemID: String?
    public var createdAt: Date?

    public init(id: String, kind: String, title: String, status: String, progress: Double, message: String?, itemID: String?, createdAt: Date?) {
        self.id = id
        self.kind = kind
        self.title = title
        self.status = status
        self.progress = progress
        self.message = message
        self.itemID = itemID
        self.createdAt = createdAt
    }
}
