import Foundation

/// The sleep timer's fade: how long it lasts and the shape in which the level falls to silence.
///
/// `SleepTimer.fade` is the one value, and everything that fades for the timer reads it: the
/// timer's volume, the server's renditions (their ffmpeg filter and their file names) and the
/// live Wind Down file's samples. Its twin in the web players is `Web/player/sleep-timer.js`
/// (`SLEEP_FADE`, `sleepTimerVolume`, and `layFade` on an AudioParam); both answer the `fade`
/// rows of `Tests/Shared/sleep-timer-cases.json`.
public struct SleepFade: Sendable, Equatable, Hashable {
    /// How the level falls over the fade.
    public enum Shape: String, Sendable, Equatable, Hashable {
        /// In a straight line in amplitude: the gain is the share of the fade still to go.
        case linear
    }

    /// Seconds the fade lasts; it ends as the timer does.
    public var seconds: Double
    public var shape: Shape

    public init(seconds: Double, shape: Shape) {
        self.seconds = seconds
        self.shape = shape
    }

    /// The gain (0…1) with `left` seconds until the end: 1 before the fade, falling in `shape`
    /// through it, 0 at the end and after. Cheap enough to call for every sample.
    public func gain(left: Double) -> Double {
        guard left > 0 else { return 0 }
        let share = min(1, left / seconds)
        switch shape {
        case .linear: return share
        }
    }

    /// ffmpeg's `afade` curve for `shape` (https://ffmpeg.org/ffmpeg-filters.html#afade-1):
    /// `tri`, a straight line, for linear.
    public var ffmpegCurve: String {
        switch shape {
        case .linear: "tri"
        }
    }

    /// The fade in a cache file's name, its length and shape (`fade30-linear`): a rendition made
    /// with another fade has another name, so a changed fade is never answered from an old file.
    public var cacheTag: String { "fade" + String(format: "%g", seconds) + "-" + shape.rawValue }
}
