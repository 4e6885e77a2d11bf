import Logging
import Vapor

/// Speech: scripts spoken on request, their audio, first phrase, captions and timeline.
struct SpeechFeature: Feature {
    let routes: [any RouteCollection]

    init(speechRenders: Store<any SpeechRenderRepository>, media: MediaFiles, speech: SpeechJobs, config: ServerConfig,
         now: @escaping @Sendable () -> Date, logger: Logger) {
        routes = [SpeechController(speechRenders: speechRenders, media: media, speech: speech, maxCharacters: config.speechMaxCharacters,
                                   maxConcurrentRenders: config.speechMaxConcurrentRenders, now: now, logger: logger,
                                   firstPhraseWait: .seconds(30 * config.patience))]
    }
}
