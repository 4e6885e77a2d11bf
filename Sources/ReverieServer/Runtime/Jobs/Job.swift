import Foundation

/// A kind of long work as a value: the value is the job's input (kept in the jobs table as JSON),
/// and its type says which kind it is. Each kind names the services it runs with as one plain
/// value, made once in `configure` and handed to `JobWorkers` in a `JobRunner`.
protocol Job: Codable, Sendable {
    /// What running this kind of job needs, and nothing more.
    associatedtype Services: Sendable
    /// The kind, as the jobs table and `GET /api/jobs` name it.
    static var kind: JobKind { get }
    /// Does the work, saying how far it got through `context` (which also renews the lease).
    /// - Returns: what came of it, for `GET /api/jobs/{id}`.
    func run(_ context: JobContext, _ services: Services) async throws -> JobOutput
}

/// A kind of job, as the jobs table and `GET /api/jobs` name it (`feeds.refresh`). Each kind is
/// declared beside its job (`extension JobKind { static let feedRefresh … }`), so the runtime
/// names none; the workers run the kinds the features give them (`JobWorkers.kinds`).
public struct JobKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// Where a job is. A job is taken `queued` → `running`, and ends `done` or `failed`; a running
/// job whose lease ran out (its server stopped) is taken again.
public enum JobStatus: String, Codable, Sendable, CaseIterable {
    case queued, running, done, failed
}

/// What a finished job leaves in the table's `result` column.
struct JobOutput: Codable, Sendable, Equatable {
    /// The id of what it made (a library item, an article), answered as `itemID`.
    var itemID: String?
    /// A refresh's outcome: `unchanged`, `3 new` or `failed`.
    var outcome: String?
    /// Why a refresh failed (the job itself ends done: the failure is the podcast's).
    var error: String?

    init(itemID: UUID? = nil, outcome: String? = nil, error: String? = nil) {
        self.itemID = itemID?.uuidString.lowercased()
        self.outcome = outcome
        self.error = error
    }

    /// Nothing to tell.
    static let none = JobOutput()

    /// As the `result` column keeps it (nil when there is nothing to tell).
    var json: String? {
        guard self != .none, let data = try? JSONEncoder().encode(self) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// From the `result` column; nil when it holds nothing this version can read.
    static func decode(_ json: String?) -> JobOutput? {
        json.flatMap { try? JSONDecoder().decode(JobOutput.self, from: Data($0.utf8)) }
    }
}

/// What a job's work sees besides its input: who it is for, and a way to say how far it got.
struct JobContext: Sendable {
    let id: UUID
    let ownerID: UUID
    let report: @Sendable (_ progress: Double, _ message: String) async -> Void
}
