import Vapor

/// Up Next and the named lists: what a person plays next, described from where they keep it.
struct QueuesFeature: Feature {
    let routes: [any RouteCollection]

    init(queues: Store<any QueueRepository>, podcasts: Store<any PodcastRepository>, library: Store<any LibraryRepository>,
         articles: Store<any ArticleRepository>, librivox: LibriVoxController) {
        routes = [QueueController(queues: queues, podcasts: podcasts, library: library, articles: articles, librivox: librivox)]
    }
}
