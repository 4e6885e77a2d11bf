import Foundation

/// One kind of job with the services it runs with, its input type erased to the table's JSON.
struct JobRunner: Sendable {
    let kind: JobKind
    private let work: @Sendable (_ payload: String, _ context: JobContext) async throws -> JobOutput

    init<J: Job>(_ type: J.Type, _ services: J.Services) {
        kind = J.kind
        work = { payload, context in
            let job: J
            do {
                job = try JSONDecoder().decode(J.self, from: Data(payload.utf8))
            } catch {
                throw JobError.unreadableInput(J.kind)
            }
            return try await job.run(context, services)
        }
    }

    func run(payload: String, _ context: JobContext) async throws -> JobOutput {
        try await work(payload, context)
    }
}

/// Why the workers could not run a job at all.
enum JobError: Error, Equatable, CustomStringConvertible {
    /// The row names a kind this server does not know (a newer server added it).
    case unknownKind(String)
    /// The row's input is not what its kind reads.
    case unreadableInput(JobKind)

    var description: String {
        switch self {
        case let .unknownKind(kind): "Reverie does not know this kind of job (\(kind))."
        case let .unreadableInput(kind): "This job's input cannot be read as a \(kind.rawValue) job."
        }
    }
}
