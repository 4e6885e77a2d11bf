import Fluent
import Vapor

/// One feature's store, as the feature is given it: a controller or job names exactly the
/// stores it uses (`Store<any PodcastRepository>`), and reaches the rows through them only.
///
/// ## Why a store is bound late (issue 45)
/// Fluent hands out a database per event loop, each with its own pool. A repository bound to
/// `app.db` once would keep one loop's pool for every request; so a `Store` holds how to make the
/// repository, and makes it on the request's own database (`on(req)`), or for work outside a
/// request (jobs, start-up, the command line) on the application's databases, from any loop's
/// pool each time (`outside`). Tests give a feature a store of their own with `fixed(_:)`.
///
/// ## What a store is (issue 30)
/// Each store is named by a protocol (`PodcastRepository`, …), and that protocol is the seam:
/// controllers and jobs are given `Store<any PodcastRepository>`, never Fluent. The protocols
/// answer plain values rather than Fluent models (`PodcastRecord`, `JobRecord`, the API's
/// `Composition`…), so what leaves a store cannot be changed and saved behind its back, and tests
/// compare whole values. Each has one implementation on Fluent, run by the API tests on SQLite and
/// on PostgreSQL: the SQL that matters (the claims of jobs and due feeds with FOR UPDATE SKIP
/// LOCKED, FTS5 search, the constraint failures that make a repeated upload count once) is only
/// trusted run for real. A test gives a feature an in-memory store where that says more.
struct Store<Repository: Sendable>: Sendable {
    private let make: @Sendable (_ request: Request?) -> Repository

    private init(make: @escaping @Sendable (_ request: Request?) -> Repository) {
        self.make = make
    }

    /// A store on Fluent: the request's database in a request, else the application's.
    /// - Parameters:
    ///   - databases: the application's databases (`app.databases`), for work outside requests.
    ///   - loops: where those connections are taken from (`app.eventLoopGroup`).
    ///   - build: the Fluent implementation on one database.
    static func fluent(_ databases: Databases, loops: any EventLoopGroup, logger: Logger,
                       _ build: @escaping @Sendable (any Database) -> Repository) -> Store {
        Store { request in
            if let request { return build(request.db) }
            // `databases.database` answers nil only for an id never configured; the default is.
            return build(databases.database(logger: logger, on: loops.any())!)
        }
    }

    /// The same repository whatever asks: an in-memory one in tests, or one that fails on purpose.
    static func fixed(_ repository: Repository) -> Store {
        Store { _ in repository }
    }

    /// The repository on this request's database connection.
    func on(_ request: Request) -> Repository { make(request) }

    /// The repository for work outside a request: jobs, start-up work, the command line.
    var outside: Repository { make(nil) }
}

extension Application {
    /// A Fluent store on this application's databases (`configure`, the command line and tests).
    func store<Repository: Sendable>(_ build: @escaping @Sendable (any Database) -> Repository) -> Store<Repository> {
        .fluent(databases, loops: eventLoopGroup, logger: logger, build)
    }
}
