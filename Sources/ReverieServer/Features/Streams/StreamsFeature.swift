import ReverieAPI
import Vapor

/// Joined streams: a person's queued files one after another as one MP3, so the next one plays on
/// a locked phone (`JoinedStreamController`).
struct StreamsFeature: Feature {
    let routes: [any RouteCollection]

    init(library: LibraryStore, podcasts: Store<any PodcastRepository>, speechRenders: Store<any SpeechRenderRepository>, speech: SpeechJobs,
         librivox: LibriVoxController, client: GuardedHTTPClient, config: ServerConfig) {
        routes = [JoinedStreamController(library: library, podcasts: podcasts, speechRenders: speechRenders, speech: speech, config: config,
                                         librivoxBook: { id, req in try await librivox.cached(id, req) },
                                         remote: RemoteParts(client: client, maxBytes: config.maxUploadBytes))]
    }
}
