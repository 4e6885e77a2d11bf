import Foundation

/// A job as the jobs table holds it: what `JobRepository` answers, a value that knows nothing of
/// the database (see `JobModel` for the row it is read from).
public struct JobRecord: Sendable, Equatable {
    public var id: UUID
    /// The person the job runs for.
    public var ownerID: UUID
    /// A `JobKind`'s raw value, kept as text: a kind a newer server added is refused by the
    /// workers rather than unreadable here.
    public var kind: String
    /// What the person knows it by ("The Secret Garden").
    public var title: String
    public var status: JobStatus
    /// How far along, 0…1.
    public var progress: Double
    /// What the job is doing now, or why it failed, for the person.
    public var message: String?
    /// The job's value (a `Job`), JSON: what a worker runs.
    public var payload: String
    /// What came of it, a `JobOutput` as JSON.
    public var result: String?
    /// How many times a worker has taken it.
    public var attempts: Int
    /// A running job belongs to its worker until then.
    public var leaseUntil: Date?
    /// When it was queued; nil only for a row written without Fluent's timestamp.
    public var createdAt: Date?
}
