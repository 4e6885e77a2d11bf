import SleepLibrary
import Vapor

/// Wind Down: the sleep catalog with each person's places, its audio (spoken on first play, or
/// the owner's), and the sleep timer's renditions.
struct WindDownFeature: Feature {
    let routes: [any RouteCollection]

    init(progress: Store<any ProgressRepository>, media: MediaFiles, sleepAudio: SleepAudio, renditions: Renditions,
         attachments: SleepAttachments, library: SleepLibrary, config: ServerConfig, now: @escaping @Sendable () -> Date) {
        routes = [WindDownController(attachedAudio: attachments.store, progress: progress, media: media, sleepAudio: sleepAudio,
                                     renditions: renditions, attachments: attachments, now: now, library: library,
                                     maxUploadBytes: config.maxUploadBytes, firstSoundWait: .seconds(30 * config.patience))]
    }
}
