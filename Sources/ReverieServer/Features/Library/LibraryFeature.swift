import Vapor

/// The library: a person's music and books, uploaded or imported, with their places.
struct LibraryFeature: Feature {
    let routes: [any RouteCollection]

    init(progress: Store<any ProgressRepository>, library: LibraryStore, media: MediaFiles, renditions: Renditions, config: ServerConfig) {
        routes = [LibraryController(library: library.repository, progress: progress, media: media, store: library, renditions: renditions,
                                    maxUploadBytes: config.maxUploadBytes)]
    }
}
