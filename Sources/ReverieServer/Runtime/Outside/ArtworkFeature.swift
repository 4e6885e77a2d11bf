import Vapor

/// Artwork: outside covers fetched once through the guarded client and kept small.
struct ArtworkFeature: Feature {
    let routes: [any RouteCollection]

    init(store: ArtworkStore) {
        routes = [ArtworkController(store: store)]
    }
}
