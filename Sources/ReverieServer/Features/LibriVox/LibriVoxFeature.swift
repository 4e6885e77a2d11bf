import Foundation
import ReverieAPI
import Vapor

/// LibriVox: its catalog searched and streamed, and books downloaded into the library as jobs.
struct LibriVoxFeature: Feature {
    /// The catalog's routes; Up Next describes LibriVox books through them (and their books kept).
    let controller: LibriVoxController
    let jobs: [JobRunner]
    var routes: [any RouteCollection] { [controller] }

    init(client: GuardedHTTPClient, library: LibraryStore, config: ServerConfig, queue: JobQueue) {
        controller = LibriVoxController(base: config.librivoxBaseURL, client: client, jobs: queue, maxBytes: config.maxUploadBytes,
                                        books: Recent(lifetime: .minutes(10), capacity: 500))
        jobs = [JobRunner(LibriVoxDownload.self, .init(catalog: LibriVoxCatalog(base: config.librivoxBaseURL, client: client), client: client,
                                                       store: library, incomingDirectory: config.mediaDirectory(".incoming"),
                                                       maxBytes: config.maxUploadBytes))]
    }
}
