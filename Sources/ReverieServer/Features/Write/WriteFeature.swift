import Foundation
import Vapor

/// Write: songs and their versions, rhymes, and the tracks a song is practised with.
struct WriteFeature: Feature {
    let routes: [any RouteCollection]

    init(compositions: Store<any CompositionRepository>, songTracks: Store<any SongTrackRepository>, libraryItems: Store<any LibraryRepository>,
         library: LibraryStore, media: MediaFiles, rhymes: RhymesProvider, threadPool: NIOThreadPool, config: ServerConfig,
         now: @escaping @Sendable () -> Date) {
        routes = [
            CompositionController(compositions: compositions, rhymes: rhymes, threadPool: threadPool, now: now),
            SongTrackController(songTracks: songTracks, library: libraryItems, compositions: compositions, media: media, store: library,
                                practiceDirectory: config.cacheDirectory("practice")),
            RhymesController(rhymes: rhymes, threadPool: threadPool),
        ]
    }
}
