import Vapor

/// Jobs as a person sees them: their recent jobs and one job's progress.
struct JobsFeature: Feature {
    let routes: [any RouteCollection]

    init(jobRecords: Store<any JobRepository>) {
        routes = [JobController(jobs: jobRecords)]
    }
}
