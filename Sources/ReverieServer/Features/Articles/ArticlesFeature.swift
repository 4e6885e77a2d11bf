import Foundation
import Vapor

/// Articles: pages saved by address or upload (read in the background as a job), read aloud.
struct ArticlesFeature: Feature {
    /// The routes; wallabag's apps save pages through it (`saveNow`).
    let controller: ArticleController
    let jobs: [JobRunner]
    var routes: [any RouteCollection] { [controller] }

    init(articles: Store<any ArticleRepository>, media: MediaFiles, client: GuardedHTTPClient, config: ServerConfig, queue: JobQueue,
         now: @escaping @Sendable () -> Date) {
        controller = ArticleController(articles: articles, media: media, client: client, maxUploadBytes: config.maxUploadBytes, now: now, jobs: queue)
        jobs = [JobRunner(ArticleImport.self, .init(articles: articles, client: client, config: config))]
    }
}
