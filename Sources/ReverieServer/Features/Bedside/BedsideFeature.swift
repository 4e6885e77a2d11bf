import Bedside
import Vapor

/// Bedside: the clock's settings, the pieces (presets and the person's own), rooms and chime.
struct BedsideFeature: Feature {
    let routes: [any RouteCollection]

    init(settings: Store<any SettingsRepository>, bedsidePieces: Store<any BedsidePieceRepository>, media: MediaFiles,
         sounds: SynthesizedAudio, library: BedsideLibrary, now: @escaping @Sendable () -> Date) {
        routes = [BedsideController(settings: settings, bedsidePieces: bedsidePieces, media: media, sounds: sounds, now: now, library: library)]
    }
}
