import Foundation

/// What the lock screen (Media Session) shows while a music player and a speech player play side
/// by side: the seed's `LockScreenManager.update()`, kept to its two "was playing" flags and its
/// order of conditions (the seed's lesson: a third "last active player" variable broke it).
///
/// | state | shows |
/// |---|---|
/// | only music | music |
/// | only speech | speech |
/// | both playing | combined (title of both, the app's logo) |
/// | both were playing, then paused | still combined |
/// | music paused alone | music |
/// | speech paused alone | speech |
public enum LockScreenRule {
    /// One player as the rule sees it.
    public struct Player: Sendable, Equatable, Codable {
        /// Something is loaded (a track, chapter, episode or station), playing or paused.
        public var isLoaded: Bool
        public var isPlaying: Bool

        public init(isLoaded: Bool, isPlaying: Bool) {
            self.isLoaded = isLoaded
            self.isPlaying = isPlaying && isLoaded
        }

        public static let empty = Player(isLoaded: false, isPlaying: false)
        public static let paused = Player(isLoaded: true, isPlaying: false)
        public static let playing = Player(isLoaded: true, isPlaying: true)
    }

    /// The rule's memory between updates: which players were playing when last seen.
    public struct Flags: Sendable, Equatable, Codable {
        public var musicWasPlaying: Bool
        public var speechWasPlaying: Bool

        public init(musicWasPlaying: Bool = false, speechWasPlaying: Bool = false) {
            self.musicWasPlaying = musicWasPlaying
            self.speechWasPlaying = speechWasPlaying
        }
    }

    /// What the lock screen shows.
    public enum Shows: String, Sendable, Equatable, Codable, CaseIterable {
        case nothing, music, speech, combined
    }

    /// The display for the players' states now, and the flags to keep for the next update. Call it
    /// whenever either player starts, pauses, or changes what is loaded.
    public static func update(music: Player, speech: Player, flags: Flags) -> (shows: Shows, flags: Flags) {
        if music.isPlaying && speech.isPlaying {
            return (.combined, Flags(musicWasPlaying: true, speechWasPlaying: true))
        }
        if music.isPlaying {
            return (.music, Flags(musicWasPlaying: true, speechWasPlaying: false))
        }
        if speech.isPlaying {
            return (.speech, Flags(musicWasPlaying: false, speechWasPlaying: true))
        }
        // Nothing plays: show what was playing last, as long as it is still loaded.
        let musicWas = flags.musicWasPlaying && music.isLoaded
        let speechWas = flags.speechWasPlaying && speech.isLoaded
        let kept = Flags(musicWasPlaying: musicWas, speechWasPlaying: speechWas)
        if musicWas && speechWas { return (.combined, kept) }
        if musicWas { return (.music, kept) }
        if speechWas { return (.speech, kept) }
        if speech.isLoaded { return (.speech, kept) }
        if music.isLoaded { return (.music, kept) }
        return (.nothing, kept)
    }

    /// One headset or lock-screen play/pause press: while anything plays, it pauses everything
    /// that plays; otherwise it resumes what the lock screen shows (both, after a pause of both).
    /// Returns which players should be playing afterwards.
    public static func togglePress(music: Player, speech: Player, flags: Flags) -> (music: Bool, speech: Bool) {
        if music.isPlaying || speech.isPlaying { return (false, false) }
        switch update(music: music, speech: speech, flags: flags).shows {
        case .combined: return (true, true)
        case .music: return (true, false)
        case .speech: return (false, true)
        case .nothing: return (false, false)
        }
    }
}
