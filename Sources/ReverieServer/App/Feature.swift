import Vapor

/// A feature as `configure` assembles it. Each feature folder has one file that makes its value
/// (`PodcastsFeature`, `WriteFeature`, …) from plain values: the stores it uses, the runtime parts
/// it needs (the job queue among them), its settings. From that value come its routes, the kinds
/// of job it runs and what runs beside them while the server runs, so its signature says
/// everything the feature touches.
protocol Feature {
    /// Its routes.
    var routes: [any RouteCollection] { get }
    /// The kinds of job this feature runs, each with its services (`JobWorkers` takes them all).
    var jobs: [JobRunner] { get }
    /// What runs beside the routes (a schedule), started and stopped with the server.
    var lifecycle: [any LifecycleHandler] { get }
}

extension Feature {
    var jobs: [JobRunner] { [] }
    var lifecycle: [any LifecycleHandler] { [] }
}
