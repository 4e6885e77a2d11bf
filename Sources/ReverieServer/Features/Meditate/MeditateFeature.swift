import Breathing
import Vapor

/// Meditate: the breathing sessions' plan and audio, and each person's sessions and streaks.
struct MeditateFeature: Feature {
    let routes: [any RouteCollection]

    init(meditationSessions: Store<any MeditationSessionRepository>, media: MediaFiles, manifest: MeditationManifest, audio: MeditationAudio,
         now: @escaping @Sendable () -> Date) {
        routes = [MeditationController(meditationSessions: meditationSessions, media: media, now: now, manifest: manifest, audio: audio)]
    }
}
