import Foundation

/// `GET /api/jobs`: the person's latest jobs, newest first.
public struct JobList: Codable, Sendable, Equatable {
    public var jobs: [JobInfo]

    public init(jobs: [JobInfo]) {
        self.jobs = jobs
    }
}
