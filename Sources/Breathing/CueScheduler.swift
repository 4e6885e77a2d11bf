#if canImport(AudioRender)
@_exported import struct AudioRender.SeededGenerator
#endif
import Foundation

/// An audio cue at a time in the session (seconds from its start), and whether it has played.
/// The seed's `ScheduledCue`; times are fractional when a cue was moved after another one.
public struct ScheduledCue: Codable, Sendable, Equatable {
    public var atSeconds: Double
    public var audioFile: String
    public var played: Bool

    public init(atSeconds: Double, audioFile: String, played: Bool = false) {
        self.atSeconds = atSeconds
        self.audioFile = audioFile
        self.played = played
    }
}

/// Turns a variant into the session's cues.
public enum CueScheduler {
    /// Fixed cues at their times; for each interjection window one cue at a random second of the
    /// window, from its pool — one not yet heard in this session while there is one, and never the
    /// one just before; all sorted by time. A cue that would start while the previous one is
    /// still playing (per `length`, in seconds) moves to just after it.
    ///
    /// - Parameters:
    ///   - length: how long each audio file plays; unknown files count as 0.
    ///   - random: the generator; a `SeededGenerator` makes the schedule reproducible.
    public static func schedule<R: RandomNumberGenerator>(
        _ variant: MeditationManifest.Variant,
        length: (String) -> Double = { _ in 0 },
        using random: inout R
    ) -> [ScheduledCue] {
        var cues: [ScheduledCue] = []
        var heard: [String] = []
        for (phase, start) in zip(variant.phases, variant.phaseStarts) {
            for cue in phase.fixedCues {
                cues.append(ScheduledCue(atSeconds: Double(start + cue.atSeconds), audioFile: cue.audioFile))
            }
            for window in phase.interjectionWindows ?? [] where !window.audioPool.isEmpty && window.earliestSeconds <= window.latestSeconds {
                let second = Int.random(in: window.earliestSeconds...window.latestSeconds, using: &random)
                let fresh = window.audioPool.filter { !heard.contains($0) }
                let notLast = window.audioPool.filter { $0 != heard.last }
                let choices = !fresh.isEmpty ? fresh : (!notLast.isEmpty ? notLast : window.audioPool)
                let file = choices[Int.random(in: 0..<choices.count, using: &random)]
                heard.append(file)
                cues.append(ScheduledCue(atSeconds: Double(start + second), audioFile: file))
            }
        }
        cues.sort { $0.atSeconds < $1.atSeconds }
        var free = 0.0
        for index in cues.indices {
            cues[index].atSeconds = max(cues[index].atSeconds, free)
            free = cues[index].atSeconds + max(0, length(cues[index].audioFile))
        }
        return cues
    }
}
