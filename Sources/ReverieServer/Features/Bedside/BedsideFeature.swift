import Bedside
import Vapor

/// Bedside: the clock's settings, the pieces (presets and the person's own), rooms and chime, and
/// the night as one live stream.
struct BedsideFeature: Feature {
    let routes: [any RouteCollection]
    /// The night streams playing now.
    let nights = StreamsPerPerson(limit: 3)

    init(settings: Store<any SettingsRepository>, bedsidePieces: Store<any BedsidePieceRepository>, media: MediaFiles,
         sounds: SynthesizedAudio, renditions: Renditions, library: BedsideLibrary, nightStreamSeconds: Int,
         now: @escaping @Sendable () -> Date) {
        routes = [BedsideController(settings: settings, bedsidePieces: bedsidePieces, media: media, sounds: sounds,
                                    renditions: renditions, now: now, library: library),
                  NightStreamController(settings: settings, streams: nights, ffmpeg: "ffmpeg",
                                        longest: TimeInterval(nightStreamSeconds), now: now)]
    }
}
