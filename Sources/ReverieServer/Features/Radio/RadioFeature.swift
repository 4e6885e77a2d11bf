import Vapor

/// Radio: radio-browser's stations, their streams relayed, and each person's favourites.
struct RadioFeature: Feature {
    let routes: [any RouteCollection]

    init(radioFavourites: Store<any RadioFavouriteRepository>, client: GuardedHTTPClient, config: ServerConfig) {
        routes = [RadioController(radioFavourites: radioFavourites, directory: RadioBrowser(base: config.radioBrowserBaseURL), client: client,
                                  maxBytes: config.maxUploadBytes, hls: HLSRelay(client: client))]
    }
}
