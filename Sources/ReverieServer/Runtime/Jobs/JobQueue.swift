import Foundation

/// The one way work is queued: the job's row is written, and this server's workers are woken
/// (another server's find it at their next poll).
struct JobQueue: Sendable {
    let repository: Store<any JobRepository>
    let workers: JobWorkers

    /// Queues `job` for the person with `ownerID`, under the `title` they know it by.
    @discardableResult
    func enqueue<J: Job>(_ job: J, title: String, ownerID: UUID) async throws -> JobRecord {
        let payload = String(decoding: try JSONEncoder().encode(job), as: UTF8.self)
        let record = try await repository.outside.enqueue(ownerID: ownerID, kind: J.kind, title: title, payload: payload)
        workers.poke()
        return record
    }
}
